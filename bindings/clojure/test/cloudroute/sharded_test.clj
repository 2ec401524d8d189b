(ns cloudroute.sharded-test
  "The pre-sharded client and the Sentinel batches from Clojure: standalone redis-servers of
  this namespace's own (127.0.0.1, CR_JAVA_SHARDED_PORT + 10 .. + 12: 8971-8973 from
  tests/java/run.sh; tests/PORTS.md) and the Sentinel setup of tests/java/run.sh
  (CR_JAVA_SENTINEL_ENV). Skipped without them."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [cloudroute.core :as cr])
  (:import (java.io File)
           (java.util.concurrent TimeUnit)
           (redis.clients.jedis Jedis)
           (redis.clients.jedis.exceptions JedisConnectionException)))

(def ^:private host "127.0.0.1")

(defn- base-port []
  (some-> (System/getenv "CR_JAVA_SHARDED_PORT") not-empty Long/parseLong (+ 10)))

(defn- addr [port] (str host ":" port))

(defn- node ^Jedis [port] (Jedis. ^String host (int port) (int 10000)))

(defn- pings? [port]
  (try (with-open [j (node port)] (= "PONG" (.ping j)))
       (catch JedisConnectionException _ false)))

(defn- poll
  "Calls done? every 10 ms until it is true; false after timeout-ms."
  [done? timeout-ms]
  (let [deadline (+ (System/currentTimeMillis) timeout-ms)]
    (loop []
      (cond (done?) true
            (> (System/currentTimeMillis) deadline) false
            :else (do (Thread/sleep 10) (recur))))))

(defn- start-server
  "A redis-server child process on port (no persistence); answers PING when this returns."
  ^Process [port]
  (let [dir (.toFile (java.nio.file.Files/createTempDirectory
                      "cr-clj-standalone" (make-array java.nio.file.attribute.FileAttribute 0)))
        p (-> (ProcessBuilder. ^java.util.List
                               ["redis-server" "--port" (str port) "--bind" host "--save" ""
                                "--appendonly" "no" "--dir" (str dir)])
              (.redirectErrorStream true)
              (.redirectOutput (File. dir "redis.log"))
              (.start))]
    (when-not (poll #(pings? port) 10000)
      (.destroyForcibly p)
      (throw (ex-info (str "redis-server on " port " did not start") {:port port})))
    p))

(defn- stop-server [^Process p]
  (.destroyForcibly p)
  (.waitFor p 10 TimeUnit/SECONDS))

(def ^:private cache-ring
  "ShardedJedis's placement for JedisShardInfos named cache-a (weight 1) and cache-b (2)."
  {:algo :murmur :naming :jedis3 :shards [{:name "cache-a" :weight 1} {:name "cache-b" :weight 2}]})

(deftest sharded-client-surface
  (if-let [base (base-port)]
    (let [[a b spare] [base (inc base) (+ base 2)]
          servers (mapv start-server [a b spare])]
      (try
        (with-open [c (cr/sharded-client [(addr a) [(addr b)]] cache-ring {:local-cidrs ["127.0.0.0/8"]}
                                         {:command-timeout-ms 2000})
                    ring (cr/ring cache-ring)]
          (let [ks (mapv #(str "clj:" %) (range 100))]
            (testing "keys land where the ring (ShardedJedis's) puts them, one command per shard"
              (cr/mset! c (zipmap ks (map #(str "v" %) ks)))
              (doseq [k ks]
                (is (= (cr/locate ring k) (cr/locate c k)) k)
                (with-open [j (node (if (zero? (cr/locate c k)) a b))]
                  (is (= (str "v" k) (.get j ^String k)) k)))
              (is (= #{0 1} (set (map #(cr/locate c %) ks)))))
            (testing "the same calls as the cluster client"
              (is (= ["vclj:0" nil "vclj:99"] (cr/mget c ["clj:0" "clj:none" "clj:99"])))
              (is (= 100 (cr/exists c ks)))
              (is (true? (cr/expire! c "clj:1" 100)))
              (is (false? (cr/expire! c "clj:none" 100)))
              (cr/store! c "clj:s" "x" 60000)
              (is (= "x" (cr/fetch c "clj:s")))
              (is (= "OK" (cr/command c :write "SET" "clj:t" "y")))
              (is (= [true "p" 1] (cr/pipeline c [[:set "clj:p" "p"] [:get "clj:p"] [:del "clj:p"]])))
              (is (= (set ks) (into #{} (cr/scan c {:match "clj:[0-9]*"}))))
              (is (= [(addr a) (addr b)] (keys (cr/on-masters c "PING"))))
              (is (= "PONG" (cr/on-node c (addr a) "PING")))
              (is (pos? (:writes (cr/stats c))))
              (is (= 2 (count (cr/node-stats c))))
              (with-open [s (cr/script "return redis.call('GET', KEYS[1])")]
                (is (= "vclj:5" (String. ^bytes (cr/eval-script c s ["clj:5"] []) "UTF-8")))))
            (testing "failures are ex-info with the status as data"
              (let [e (try (cr/mget c []) nil (catch clojure.lang.ExceptionInfo e e))]
                (is (= {:cloudroute/status :einval :cloudroute/kind :invalid-argument}
                       (select-keys (ex-data e) [:cloudroute/status :cloudroute/kind]))))
              (let [e (try (cr/sharded-client [(addr a) "nohost"] cache-ring) nil
                           (catch clojure.lang.ExceptionInfo e e))]
                (is (= :einval (:cloudroute/status (ex-data e))))
                (is (str/includes? (ex-message e) "nohost")))
              (is (thrown? IllegalArgumentException (cr/pipeline (Object.) [[:get "k"]]))))
            (testing "the asynchronous calls give the blocking calls' results"
              (is (nil? @(cr/store-async! c "clj:as" "a")))
              (is (= "a" @(cr/fetch-async c "clj:as")))
              (is (= 4 @(cr/incr-async! c "clj:as:n" 4)))
              (cr/del! c ks)
              (is (nil? @(cr/mset-async! c (zipmap ks (map #(str "v" %) ks)))))
              (is (= (cr/mget c ks) @(cr/mget-async c ks)))
              (is (= (mapv #(str "v" %) ks) @(cr/mget-async c ks)))
              (is (= 101 @(cr/exists-async c (conj ks (first ks)))))
              (is (= 2 @(cr/del-async! c ["clj:as" "clj:as:n" "clj:none"])))
              (is (= 0 @(cr/exists-async c "clj:as")))
              (let [e (try (cr/mget-async c []) nil (catch clojure.lang.ExceptionInfo e e))
                    blocking (try (cr/mget c []) nil (catch clojure.lang.ExceptionInfo e e))]
                (is (= :einval (:cloudroute/status (ex-data e))) "refused at once, as mget")
                ;; the same message but for the C function it names first
                (is (= (str/replace (ex-message blocking) #"^cr_\w+: " "")
                       (str/replace (ex-message e) #"^cr_\w+: " ""))))
              (is (= :einval (:cloudroute/status
                              (ex-data (is (thrown? clojure.lang.ExceptionInfo
                                                    (cr/command-async c :auto "GET" "k"))))))))
            (testing "the seed's move: replicate, promote, set-servers!, no key moves"
              (with-open [copy (node spare) old (node b)]
                (.slaveof copy host (int b))
                (is (poll #(and (str/includes? (.info copy "replication") "master_link_status:up")
                                (= (.dbSize copy) (.dbSize old)))
                          20000))
                (.slaveofNoOne copy)
                (cr/set-servers! c [(addr a) (addr spare)])
                (is (= (mapv #(str "v" %) ks) (cr/mget c ks)))))
            (testing "a killed server: its keys fail, the others are served"
              (stop-server (nth servers 2))
              (is (poll #(not (pings? spare)) 10000))
              (let [on-a (filter #(zero? (cr/locate c %)) ks)
                    on-b (remove #(zero? (cr/locate c %)) ks)
                    e (try (cr/fetch c (first on-b)) nil (catch clojure.lang.ExceptionInfo e e))]
                (is (#{:connection :unavailable} (:cloudroute/kind (ex-data e))) (pr-str (ex-data e)))
                (is (= (count on-a) (cr/exists c on-a)))
                (is (= (str "v" (first on-a)) (cr/fetch c (first on-a))))))))
        (finally (run! stop-server servers))))
    (println "sharded-client-surface: CR_JAVA_SHARDED_PORT not set (tests/java/run.sh sets it); skipped")))

(defn- harness-env [variable]
  (when-let [f (System/getenv variable)]
    (into {} (for [line (str/split-lines (slurp f))
                   :let [i (str/index-of line "=")]
                   :when (and i (not (str/starts-with? line "#")))]
               [(subs line 0 i) (subs line (inc i))]))))

(defn- synced!
  "Waits until both replicas of the masters hold what was written so far (reads go to the
  local replica): a write on each master's connection, then WAIT for its offset."
  [masters]
  (doseq [m masters]
    (let [[h p] (str/split m #":")]
      (with-open [j (Jedis. ^String h (int (Long/parseLong p)) (int 10000))]
        (.incr j "clj:batch:sync")
        (is (poll #(= 2 (.waitReplicas j 2 1000)) 30000) (str "replicas of " m))))))

(deftest sentinel-batches
  (if-let [env (harness-env "CR_JAVA_SENTINEL_ENV")]
    (let [names (str/split (env "SENTINEL_MASTER_NAMES") #",")]
      (with-open [c (cr/sentinel-client (env "SENTINELS") names {:algo :murmur :shards names}
                                        {:local-cidrs ["127.0.1.0/24"] :location-rules {"127.0.2.0/24" "cloud-b"}
                                         :policy :local}
                                        {:command-timeout-ms 2000})]
        (let [ks (mapv #(str "clj:sb:" %) (range 100))
              groups (group-by #(cr/locate c %) ks)
              master-of #(:address (cr/route->map (.routeWrite (cr/client-groups c) ^Object (first (groups %)))))
              masters (mapv master-of [0 1])]
          (is (= #{0 1} (set (keys groups))))
          (testing "100 keys over both groups"
            (cr/mset! c (zipmap ks ks))
            (synced! masters)
            (is (= ks (cr/mget c ks)))
            (is (= 100 (cr/exists c (conj ks "clj:sb:absent"))))
            (is (= 100 (cr/del! c ks)))
            (synced! masters)
            (is (= 0 (cr/exists c ks))))
          (testing "the batches without waiting give the blocking batches' results"
            (is (nil? @(cr/mset-async! c (zipmap ks (map #(str "a" %) ks)))))
            (synced! masters)
            (is (= (cr/mget c ks) @(cr/mget-async c ks)))
            (is (= (mapv #(str "a" %) ks) @(cr/mget-async c ks)))
            (is (= 100 @(cr/exists-async c (conj ks "clj:sb:absent"))))
            (is (= 100 @(cr/del-async! c ks)))
            (synced! masters)
            (is (= 0 @(cr/exists-async c ks))))
          (testing "a partly failed batch without waiting: the blocking batch's ex-info"
            (with-open [m (let [[h p] (str/split (masters 1) #":")]
                            (Jedis. ^String h (int (Long/parseLong p)) (int 10000)))]
              (.configSet m "maxmemory" "1")
              (let [[blocking async]
                    (try [(try (cr/mset! c (zipmap ks ks)) nil (catch clojure.lang.ExceptionInfo e e))
                          (try @(cr/mset-async! c (zipmap ks ks)) nil
                               (catch java.util.concurrent.ExecutionException e (.getCause e)))]
                         (finally (.configSet m "maxmemory" "0")))
                    data (ex-data async)
                    per-key #(mapv (fn [r] (some-> r ex-data (dissoc :cloudroute/results)))
                                   (:cloudroute/results %))]
                (is (instance? clojure.lang.ExceptionInfo async))
                (is (= :server-error (:cloudroute/kind data)) (pr-str data))
                (is (= (set (groups 1)) (set (:cloudroute/failed-keys data))))
                (is (= (:cloudroute/failed-keys (ex-data blocking)) (:cloudroute/failed-keys data)))
                (is (= 100 (count (:cloudroute/results data))))
                (is (= (per-key (ex-data blocking)) (per-key data)))
                (is (= (count (groups 0)) @(cr/del-async! c (groups 0)))))))
          (testing "a failed group's keys are named in the ex-info, the others written"
            (with-open [m (let [[h p] (str/split (masters 1) #":")]
                            (Jedis. ^String h (int (Long/parseLong p)) (int 10000)))]
              (.configSet m "maxmemory" "1")
              (let [e (try (cr/mset! c (zipmap ks ks)) nil
                           (catch clojure.lang.ExceptionInfo e e)
                           (finally (.configSet m "maxmemory" "0")))
                    data (ex-data e)]
                (is (= :server-error (:cloudroute/kind data)) (pr-str data))
                (is (= (set (groups 1)) (set (:cloudroute/failed-keys data))))
                (is (= 100 (count (:cloudroute/results data))))
                (is (every? #(instance? clojure.lang.ExceptionInfo %)
                            (keep-indexed #(when (= 1 (cr/locate c (ks %1))) %2) (:cloudroute/results data))))
                (is (= (count (groups 0)) (cr/del! c (groups 0))))))))))
    (println "sentinel-batches: CR_JAVA_SENTINEL_ENV not set (tests/java/run.sh sets it); skipped")))

(deftest sentinel-async-and-options
  (testing "TLS and hedging options reach the library (refused by name before any sentinel is asked)"
    (let [refused (fn [opts]
                    (try (with-open [_ (cr/sentinel-client "127.0.0.1:1" ["a"] {:shards ["a"]} nil
                                                           (merge {:connect-timeout-ms 500} opts))]
                           nil)
                         (catch clojure.lang.ExceptionInfo e (ex-data e))))]
      (is (= :connection (:cloudroute/kind (refused {:tls false :tls-ca-file "/nonexistent/ca.pem"}))))
      (let [d (refused {:tls true :tls-ca-file "/nonexistent/ca.pem"})]
        (is (= :einval (:cloudroute/status d)) (pr-str d)))
      (is (= :einval (:cloudroute/status (refused {:hedge-mode :fixed :hedge-delay-ms 0}))))
      (is (= :connection (:cloudroute/kind (refused {:hedge-mode :adaptive :hedge-percentile 99.5
                                                      :command-timeout-ms {:other-cloud 3000}}))))))
  (if-let [env (harness-env "CR_JAVA_SENTINEL_ENV")]
    (let [names (str/split (env "SENTINEL_MASTER_NAMES") #",")]
      (with-open [c (cr/sentinel-client (env "SENTINELS") names {:algo :murmur :shards names}
                                        {:local-cidrs ["127.0.1.0/24"] :policy :master}
                                        {:command-timeout-ms 2000 :hedge-mode :fixed
                                         :hedge-delay-ms 50})]
        (let [ks (mapv #(str "clj:sa:" (System/nanoTime) ":" %) (range 50))]
          (testing "single-key calls without waiting, over both groups"
            (is (= #{0 1} (set (map #(cr/locate c %) ks))))
            (run! deref (mapv #(cr/store-async! c % (str % "!")) ks))
            (is (= (mapv #(str % "!") ks) (mapv deref (mapv #(cr/fetch-async c %) ks))))
            (is (= 3 @(cr/incr-async! c (str (first ks) ":n") 3)))
            (is (= 1 @(cr/exists-async c (first ks))))
            (is (= 1 @(cr/hset-async! c (str (first ks) ":h") "f" "x")))
            (is (= "x" @(cr/hget-async c (str (first ks) ":h") "f")))
            (is (= "OK" @(cr/command-async c :write "SET" (str (first ks) ":n") "x"))))
          (testing "failures: the future's ex-info, :auto refused at once"
            (let [e (try @(cr/incr-async! c (str (first ks) ":n")) nil
                         (catch java.util.concurrent.ExecutionException e (.getCause e)))]
              (is (= :server-error (:cloudroute/kind (ex-data e))) (pr-str e)))
            (is (thrown? clojure.lang.ExceptionInfo (cr/command-async c :auto "GET" (first ks))))
            (is (thrown? IllegalArgumentException (cr/del-async! (Object.) ks))))
          (is (= 1 @(cr/del-async! c (str (first ks) ":n"))))
          (is (= 1 @(cr/del-async! c (str (first ks) ":h"))))
          (is (= (count ks) @(cr/del-async! c ks))))))
    (println "sentinel-async-and-options: CR_JAVA_SENTINEL_ENV not set (tests/java/run.sh sets it); skipped")))
