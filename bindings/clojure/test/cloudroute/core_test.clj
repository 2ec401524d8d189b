(ns cloudroute.core-test
  (:require [clojure.test :refer [deftest is testing]]
            [cloudroute.core :as cr])
  (:import (com.fasterxml.jackson.databind ObjectMapper JsonNode)
           (io.cloudroute CloudRoute CloudRouteException$InvalidArgumentException
                          CloudRouteException$ParseException CloudRouteException$UnavailableException)
           (java.util.logging Handler Level LogRecord Logger)))

(def static-text
  (str "shard slots=0-8191 master=10.0.0.1:6379 replicas=10.1.0.1:6379,10.2.0.1:6379 id=alpha\n"
       "shard slots=8192-16383 master=10.2.0.2:6379 replicas=10.0.0.2:6379\n"))

(def cloud-a
  {:client-location "aws/us-east-1/use1-az1"
   :local-cidrs ["10.0.0.0/24"]
   :location-rules {"10.1.0.0/16" "aws/us-east-1/use1-az2" "10.2.0.0/16" "gcp/us-central1/a"}
   :policy :local-replicas-first
   :seed 42})

(deftest keyslots
  (is (= 12182 (cr/keyslot "foo")))
  (is (= 9910 (cr/keyslot "user:123456")))
  (is (= (cr/keyslot "user1000") (cr/keyslot "{user1000}.following")))
  (is (= (cr/keyslot "ключ") (cr/keyslot (.getBytes "ключ" "UTF-8"))))
  (is (= [12182 5061] (cr/keyslots ["foo" (.getBytes "bar" "UTF-8")]))))

(deftest routing
  (with-open [r (cr/router cloud-a static-text)]
    (testing "reads stay in the client's zone, writes go to the master"
      (is (= {:host "10.0.0.2" :role :replica :tier :local}
             (select-keys (cr/route-read r "a") [:host :role :tier])))
      (is (= "10.2.0.2:6379" (:address (cr/route-write r "a"))))
      (is (= 15495 (:slot (cr/route-read r "a"))))
      (is (= (cr/route-read r "a") (cr/route-read-slot r 15495))))
    (testing "candidates in rank order"
      (is (= [:local :other-cloud] (mapv :tier (cr/candidates r "a"))))
      (is (re-find #"15495" (cr/explain r "a"))))
    (testing "failures reported open the breaker"
      (let [h (:node-handle (cr/route-read r "a"))]
        (dotimes [_ 3] (cr/report-failure! r h))
        (is (= "10.2.0.2" (:host (cr/route-read r "a"))))
        (cr/report-success! r h)
        (is (= "10.0.0.2" (:host (cr/route-read r "a"))))))
    (testing "a new topology"
      (cr/update! r "shard master=10.0.0.7:6379\n")
      (is (= "10.0.0.7" (:host (cr/route-read r "a")))))))

(deftest topologies
  (with-open [t (cr/topology static-text)]
    (is (= 5 (count (cr/nodes t))))
    (is (= [{:index 0 :id "alpha" :ranges [[0 8191]]}] (take 1 (cr/shards t))))
    (is (= #{:master :replica} (set (map :role (cr/nodes t))))))
  (is (thrown? CloudRouteException$ParseException (cr/topology "shard\n")))
  (with-open [r (cr/router nil)]
    (is (thrown? CloudRouteException$UnavailableException (cr/route-read r "k")))))

(deftest configs
  (is (thrown? CloudRouteException$ParseException (cr/config {:local-cidrs ["10.0.0.0/99"]})))
  (is (thrown? CloudRouteException$InvalidArgumentException (cr/config {:policy :fastest})))
  (with-open [c (cr/config {:policy :nearest :weights {"10.0.0.1:6379" 3}
                            :breaker {:threshold 2 :cooldown-ms 100}})]
    (is (= "nearest" (.label (.policy c)))))
  (with-open [c (cr/config {:policy :local-spread :selection :least-loaded})]
    (is (= "least-loaded" (.label (.selection c)))))
  (testing ":client-zone reaches the native config, checked at once"
    (is (thrown-with-msg? CloudRouteException$InvalidArgumentException #"zone is empty"
                          (cr/config {:client-zone ""})))
    (with-open [c (cr/config {:client-zone "use1-az2"})]
      (is (instance? io.cloudroute.Config c)))))

(defn- hex [^String h]
  (byte-array (for [i (range 0 (count h) 2)] (unchecked-byte (Integer/parseInt (subs h i (+ i 2)) 16)))))

(deftest rings-match-the-golden-vectors
  (let [^JsonNode v (.readTree (ObjectMapper.) (clojure.java.io/resource "vectors/rings.json"))
        checked (atom 0)]
    (doseq [^JsonNode spec (.get v "rings")
            :when (= "jedis" (.asText (.get spec "algo")))]
      (with-open [ring (cr/ring {:algo (keyword (.asText (.get spec "hash")))
                                 :naming (keyword (.asText (.get spec "naming")))
                                 :key-tags (.asBoolean (.get spec "key_tags"))
                                 :shards (for [^JsonNode s (.get spec "shards")]
                                           {:name (when-not (.isNull (.get s "name"))
                                                    (.asText (.get s "name")))
                                            :weight (.asInt (.get s "weight"))})})]
        (doseq [^JsonNode k (.get spec "keys")]
          (swap! checked inc)
          (is (= (.asInt (.get k "shard")) (cr/locate ring (hex (.asText (.get k "key_hex")))))
              (.asText (.get spec "name"))))))
    (is (> @checked 400)))
  (with-open [ring (cr/ring {:algo :murmur :naming :jedis3 :shards ["a" "b" {:name "c" :weight 2}]})]
    (is (<= 0 (cr/locate ring "user:1") 2)))
  (is (= (cr/jedis-hash :murmur "key:10.200.107.10:9001") 6594452278845490308))
  (is (= 6 (cr/jump-hash 1 10)))
  (is (string? (cr/family-key "user" "1"))))

(deftest shard-group-tables
  (with-open [ring (cr/ring {:algo :murmur :shards ["g0" "g1"]})
              g (cr/shard-groups {:config {:local-cidrs ["127.0.1.0/24"]}
                                  :ring ring
                                  :groups [{:name "g0" :master "127.0.2.1:6379"
                                            :replicas ["127.0.1.2:6379"]}
                                           {:name "g1" :master "127.0.1.4:6379"}]})]
    (is (= 2 (.count g)))
    (let [k (first (filter #(zero? (cr/locate ring %)) (map #(str "user:" %) (range))))]
      (is (= "127.0.1.2" (.host (.routeRead g k))))
      (is (= "127.0.2.1" (.host (.routeWrite g k)))))))

(deftest live-client
  (if-let [env-file (System/getenv "CR_JAVA_CLUSTER_ENV")]
    (let [env (into {} (for [line (clojure.string/split-lines (slurp env-file))
                             :let [[k v] (clojure.string/split line #"=" 2)]
                             :when (and v (not (.startsWith ^String line "#")))]
                         [k v]))]
      (with-open [c (cr/client (env "SEEDS") {:local-cidrs ["127.0.1.0/24"]
                                              :location-rules {"127.0.2.0/24" "cloud-b"}
                                              :policy :local-replicas-first}
                               {:command-timeout-ms 2000})]
        (is (= (env "SHARD1_VALUE") (cr/fetch c (env "SHARD1_KEY"))))
        (cr/store! c "clj:k" "v")
        (cr/mset! c {"clj:a" "1" "clj:b" "2"})
        (is (= 3 (cr/del! c ["clj:k" "clj:a" "clj:b"])))
        (is (= 1 (get-in (cr/stats c) [:reads-by-tier :local])))
        (is (= :local (:tier (cr/route-read (cr/client-router c) (env "SHARD2_KEY")))))
        (testing "a command that would change a pooled connection is refused, not sent"
          (cr/store! c "{k1}clj" "mine")
          (let [e (is (thrown-with-msg? clojure.lang.ExceptionInfo
                                        #"SSUBSCRIBE is not sent on the client's pooled connections"
                                        (cr/command c :read "SSUBSCRIBE" "{k1}a" "{k1}b")))]
            (is (= {:cloudroute/status :einval :cloudroute/code -1
                    :cloudroute/kind :invalid-argument}
                   (ex-data e))))
          (is (= "mine" (cr/fetch c "{k1}clj")))
          (is (zero? (:poisoned (cr/stats c)))))))
    (println "live-client: CR_JAVA_CLUSTER_ENV not set (tests/java/run.sh sets it); skipped")))

(defn- harness-env []
  (when-let [env-file (System/getenv "CR_JAVA_CLUSTER_ENV")]
    (into {} (for [line (clojure.string/split-lines (slurp env-file))
                   :let [[k v] (clojure.string/split line #"=" 2)]
                   :when (and v (not (.startsWith ^String line "#")))]
               [k v]))))

(defn- wait-until [f what]
  (let [deadline (+ (System/currentTimeMillis) 10000)]
    (loop []
      (when-not (f)
        (is (< (System/currentTimeMillis) deadline) what)
        (when (< (System/currentTimeMillis) deadline)
          (Thread/sleep 20)
          (recur))))))

(deftest live-client-surface
  (if-let [env (harness-env)]
    (with-open [c (cr/client (env "SEEDS") {:local-cidrs ["127.0.1.0/24"]
                                            :location-rules {"127.0.2.0/24" "cloud-b"}
                                            :policy :local-replicas-first}
                             ;; reads of a slot just written go to its master (not racy)
                             {:command-timeout-ms {:local 2000 :other-cloud 2000}
                              :read-your-writes-ms 10000})]
      (cr/del! c ["clj:h" "clj:l" "clj:s" "clj:z" "clj:n"])
      (testing "typed commands give Clojure collections"
        (is (= 2 (cr/hset! c "clj:h" {:a "1" "b" "2"})))
        (is (= {"a" "1" "b" "2"} (cr/hgetall c "clj:h")))
        (is (= 2 (cr/rpush! c "clj:l" ["x" "y"])))
        (is (= ["x" "y"] (cr/lrange c "clj:l" 0 -1)))
        (is (= #{"m"} (do (cr/sadd! c "clj:s" ["m"]) (cr/smembers c "clj:s"))))
        (is (= [["a" 1.0] ["b" 2.0]] (do (cr/zadd! c "clj:z" {"b" 2 :a 1})
                                         (cr/zrange-with-scores c "clj:z" 0 -1))))
        (is (= 5 (cr/incr! c "clj:n" 5))))
      (testing "a pipeline: any mix in any slots, results in order, failures in place"
        (let [[ok v h wrong many] (cr/pipeline c [[:set "clj:p" "v"] [:get "clj:p"]
                                                  [:hgetall "clj:h"] [:write "INCR" "clj:h"]
                                                  [:mget "clj:p" "clj:missing"]])]
          (is (= [true "v" {"a" "1" "b" "2"}] [ok v h]))
          (is (instance? clojure.lang.ExceptionInfo wrong))
          (is (= :server-error (:cloudroute/kind (ex-data wrong))))
          (is (re-find #"WRONGTYPE" (ex-message wrong)))
          (is (= ["v" nil] many))))
      (testing "scan: every key once, the scan closed when reduced"
        (cr/pipeline c (for [i (range 50)] [:set (str "cljscan:" i) "v"]))
        (let [want (set (for [i (range 50)] (str "cljscan:" i)))]
          (wait-until #(= want (into #{} (cr/scan c {:match "cljscan:*"})))
                      "the scan never saw every key")
          (is (= 50 (count (into [] (cr/scan c {:match "cljscan:*" :count 7})))))
          (is (= 3 (count (into [] (take 3) (cr/scan c {:match "cljscan:*"})))))))
      (testing "scripts survive SCRIPT FLUSH; functions are called by their keys"
        (cr/store! c "{clj}k" "sv")
        (with-open [s (cr/script "return redis.call('GET', KEYS[1])")]
          (is (= "sv" (String. ^bytes (cr/eval-script c s ["{clj}k"] []))))
          (cr/on-masters c "SCRIPT" "FLUSH")
          (is (= "sv" (String. ^bytes (cr/eval-script c s ["{clj}k"] [] {:timeout-ms 1000}))))))
      (testing "a transaction sees a WATCH conflict"
        (cr/store! c "{cljtx}a" "1")
        (with-open [t (cr/transaction c "{cljtx}a")]
          (cr/watch! t "{cljtx}a")
          (cr/store! c "{cljtx}a" "2")
          (cr/multi! t)
          (is (= "QUEUED" (cr/tx-command t "SET" "{cljtx}a" "3")))
          (is (nil? (cr/exec! t)))
          (cr/multi! t)
          (cr/tx-command t "INCR" "{cljtx}a")
          (is (= [3] (cr/exec! t)))))
      (testing "node commands and a call timeout"
        (is (= 3 (count (cr/on-masters c "PING"))))
        (is (= #{"PONG"} (set (vals (cr/on-all-nodes c "PING")))))
        (is (= "PONG" (cr/on-node c (env "NODE1_ADDR") "PING")))
        (is (pos? (cr/dbsize c)))
        (cr/del! c ["{cljq}q"])
        (let [e (is (thrown? clojure.lang.ExceptionInfo (cr/blpop c "{cljq}q" 0 {:timeout-ms 300})))]
          (is (= :etimeout (:cloudroute/status (ex-data e)))))
        (is (nil? (cr/blpop c "{cljq}q" 0.2)))))
    (println "live-client-surface: CR_JAVA_CLUSTER_ENV not set; skipped")))

(deftest live-client-async
  (if-let [env (harness-env)]
    (let [handed-over (atom #{})
          pool (java.util.concurrent.Executors/newFixedThreadPool 2)
          executor (reify java.util.concurrent.Executor
                     (execute [_ r]
                       (swap! handed-over conj (.getName (Thread/currentThread)))
                       (.execute pool r)))]
      (try
        ;; reads on masters: they read what was just written
        (with-open [c (cr/client (env "SEEDS") {:local-cidrs ["127.0.1.0/24"]
                                                :location-rules {"127.0.2.0/24" "cloud-b"}
                                                :policy :master}
                                 {:command-timeout-ms 2000 :async-executor executor})]
          (testing "futures are deref-able and each gets its own reply"
            (let [ks (map #(str "clj:async:" %) (range 200))]
              (run! deref (doall (map #(cr/store-async! c %1 (str "v" %2)) ks (range))))
              (is (= (map #(str "v" %) (range 200))
                     (map deref (doall (map #(cr/fetch-async c %) ks)))))
              (is (= (env "SHARD1_VALUE") (deref (cr/fetch-async c (env "SHARD1_KEY")) 10000 nil)))))
          (testing "typed calls"
            @(cr/del-async! c "clj:async:n")
            (is (= 1 @(cr/incr-async! c "clj:async:n")))
            (is (= 6 @(cr/incr-async! c "clj:async:n" 5)))
            (is (= 1 @(cr/exists-async c "clj:async:n")))
            (is (= 1 @(cr/hset-async! c "clj:async:h" "f" "v")))
            (is (= "v" @(cr/hget-async c "clj:async:h" "f")))
            (is (bytes? @(cr/command-async c :read "GET" "clj:async:n"))))
          (testing "multi-key calls and pipelines: each future its own values"
            (let [calls (for [i (range 50)] (mapv #(str "clj:async:fan:" i ":" %) (range 5)))]
              @(cr/mset-async! c (into {} (for [ks calls, k ks] [k (str "v-" k)])))
              (let [mgets (doall (map #(cr/mget-async c %) calls))
                    pipes (doall (map #(cr/pipeline-async c (conj (mapv (fn [k] [:get k]) %)
                                                                  [:incr (first %)]))
                                      calls))]
                (doseq [[ks m p] (map vector calls mgets pipes)]
                  (is (= (mapv #(str "v-" %) ks) (deref m 10000 nil)))
                  (let [results (deref p 10000 nil)]
                    (is (= (mapv #(str "v-" %) ks) (pop results)))
                    (is (= :eredis (:cloudroute/status (ex-data (peek results)))))))
                (is (= 10 @(cr/exists-async c (concat (first calls) (second calls)))))
                (is (= 5 @(cr/del-async! c (first calls))))
                (is (= [nil nil] @(cr/mget-async c (take 2 (first calls))))))))
          (testing "a server's error fails the future with ex-info holding the status"
            (let [e (try @(cr/hset-async! c "clj:async:n" "f" "v") nil
                         (catch java.util.concurrent.ExecutionException e (.getCause e)))]
              (is (instance? clojure.lang.ExceptionInfo e))
              (is (= {:cloudroute/status :eredis :cloudroute/code -14
                      :cloudroute/kind :server-error}
                     (ex-data e)))))
          (testing "bad arguments throw at once, as ex-info"
            (is (= :invalid-argument
                   (:cloudroute/kind (ex-data (is (thrown? clojure.lang.ExceptionInfo
                                                           (cr/command-async c :auto "PING"))))))))
          (cr/del! c ["clj:async:n" "clj:async:h"]))
        (testing "the library's threads only hand completions to the executor"
          (is (seq @handed-over))
          (is (= #{"cloudroute-native"} @handed-over)))
        (finally (.shutdown pool))))
    (println "live-client-async: CR_JAVA_CLUSTER_ENV not set; skipped")))

(deftest client-options-map
  (testing "every option reaches ClientOptions; tiers by keyword"
    (let [o (#'cr/client-options {:hedge-mode :fixed :hedge-min-delay-ms 3
                                  :hedge-budget-percent 7 :hedge-percentile 95.5
                                  :command-timeout-ms {:local 100} :tls false
                                  :replica-max-lag-bytes 1024 :replica-max-lag-s 5})]
      (is (= 3 (.hedgeMinDelayMs o)))
      (is (= 7 (.hedgeBudgetPercent o)))
      (is (= 95.5 (.hedgePercentile o)))))
  (is (thrown-with-msg? IllegalArgumentException #"no tier :far"
                        (#'cr/client-options {:command-timeout-ms {:far 1}})))
  (is (thrown-with-msg? IllegalArgumentException #"no pipeline command \[:frobnicate"
                        (#'cr/queue! nil [:frobnicate "k"]))))

(deftest hedge-options
  (testing "the options map reaches ClientOptions"
    (let [o (#'cr/client-options {:hedge-mode :adaptive :hedge-delay-ms 9})]
      (is (= io.cloudroute.HedgeMode/ADAPTIVE (.hedgeMode o)))
      (is (= 9 (.hedgeDelayMs o)))))
  (testing "an unknown mode is refused by name"
    (is (thrown-with-msg? IllegalArgumentException #":hedge-mode :soon"
                          (#'cr/client-options {:hedge-mode :soon})))))

(deftest read-your-writes-option
  (testing "the options map reaches ClientOptions; off by default"
    (is (= 0 (.readYourWritesMs (#'cr/client-options {}))))
    (is (= 250 (.readYourWritesMs (#'cr/client-options {:read-your-writes-ms 250})))))
  (testing "a negative window is refused by name"
    (is (thrown-with-msg? IllegalArgumentException #"read_your_writes_ms"
                          (#'cr/client-options {:read-your-writes-ms -1})))))

(deftest db-option
  (is (= 0 (.db (#'cr/client-options {}))))
  (is (= 2 (.db (#'cr/client-options {:db 2}))))
  (is (thrown-with-msg? IllegalArgumentException #"db must be >= 0" (#'cr/client-options {:db -1}))))

(deftest shared-connections-option
  (is (= 2 (.sharedConnections (#'cr/client-options {}))))
  (is (= 0 (.sharedConnections (#'cr/client-options {:shared-connections 0}))))
  (is (= 4 (.sharedConnections (#'cr/sentinel-options {:shared-connections 4}))))
  (is (= 1 (.sharedConnections (#'cr/sharded-options {:shared-connections 1}))))
  (is (thrown-with-msg? IllegalArgumentException #"shared_connections must be >= 0"
                        (#'cr/client-options {:shared-connections -1}))))

(deftest careless-callers
  (testing "null arrays and negative counts: an exception naming the argument, not a crash"
    (is (thrown-with-msg? CloudRouteException$InvalidArgumentException #"data is null"
                          (CloudRoute/keyslots nil (int-array 1) 1 (int-array 1))))
    (is (thrown-with-msg? CloudRouteException$InvalidArgumentException #"n must be in 0..4294967295, not -1"
                          (CloudRoute/keyslots (byte-array 1) (int-array 1) -1 (int-array 1)))))
  (testing "CR/LF never enters routing state"
    (with-open [r (cr/router nil)]
      (is (thrown-with-msg? CloudRouteException$InvalidArgumentException
                            #"host '10\.9\.9\.9\\x0d\\x0a' is neither an IP address nor a hostname"
                            (cr/report-moved! r 1 "10.9.9.9\r\n" 7000))))
    (is (thrown-with-msg? CloudRouteException$InvalidArgumentException #"contains a control character"
                          (cr/config {:client-location "aws\r\n"}))))
  (testing "negative options: Python's message; zero: the C library's"
    (is (thrown-with-msg? clojure.lang.ExceptionInfo
                          #"pool_size must be in 0..4294967295, not -1"
                          (cr/client "127.0.0.1:1" nil {:pool-size -1})))
    (is (thrown-with-msg? clojure.lang.ExceptionInfo #"pool_size must be at least 1"
                          (cr/client "127.0.0.1:1" nil {:pool-size 0})))))

(deftest close-from-a-log-handler
  (if-let [env-file (System/getenv "CR_JAVA_CLUSTER_ENV")]
    (let [env (into {} (for [line (clojure.string/split-lines (slurp env-file))
                             :let [[k v] (clojure.string/split line #"=" 2)]
                             :when (and v (not (.startsWith ^String line "#")))]
                         [k v]))
          jul (Logger/getLogger "io.cloudroute")
          level (.getLevel jul)
          target (atom nil)
          closed-on (promise)
          caller (Thread/currentThread)
          handler (proxy [Handler] []
                    (publish [^LogRecord r]
                      (let [c @target]
                        (when (and c (not= caller (Thread/currentThread))
                                   (.startsWith (.getMessage r) "refresh done")
                                   (compare-and-set! target c nil))
                          (.close ^java.lang.AutoCloseable c) ; on the client's refresher thread
                          (deliver closed-on (Thread/currentThread)))))
                    (flush [])
                    (close []))]
      (.setLevel jul Level/FINE)
      (.addHandler jul handler)
      (try
        (let [c (cr/client (env "SEEDS") nil {:refresh-interval-ms 50})]
          (is (= (env "SHARD1_VALUE") (cr/fetch c (env "SHARD1_KEY"))))
          (reset! target c)
          (is (not= ::timeout (deref closed-on 10000 ::timeout)) "no refresh closed the client")
          (is (thrown? IllegalStateException (cr/fetch c (env "SHARD1_KEY")))))
        (finally
          (.removeHandler jul handler)
          (.setLevel jul level))))
    (println "close-from-a-log-handler: CR_JAVA_CLUSTER_ENV not set; skipped")))
