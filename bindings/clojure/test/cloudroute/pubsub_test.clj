(ns cloudroute.pubsub-test
  "Publish / subscribe from Clojure against tests/java/run.sh's cluster (CR_JAVA_CLUSTER_ENV;
  nothing is changed on it): a subscription read with next-message under with-open, and one
  with a handler."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [cloudroute.core :as cr]))

(defn- harness-env []
  (when-let [env-file (System/getenv "CR_JAVA_CLUSTER_ENV")]
    (into {} (for [line (str/split-lines (slurp env-file))
                   :let [[k v] (str/split line #"=" 2)]
                   :when (and v (not (str/starts-with? line "#")))]
               [k v]))))

(defn- next-matching
  "The first message of s matching pred within 10 s (the others are skipped), or nil."
  [s pred]
  (let [deadline (+ (System/nanoTime) 10e9)]
    (loop []
      (when (< (System/nanoTime) deadline)
        (let [m (cr/next-message s 100)]
          (if (and m (pred m)) m (recur)))))))

(deftest subscriptions
  (if-let [env (harness-env)]
    (with-open [c (cr/client (env "SEEDS") {:local-cidrs ["127.0.1.0/24"]
                                            :policy :local-replicas-first})]
      (testing "next-message under with-open: events and messages as maps"
        (with-open [s (cr/subscribe c {:channels ["cljps:news"] :patterns ["cljps:p.*"]})]
          (let [ev (next-matching s #(and (= :subscribed (:type %)) (= "cljps:news" (:channel %))))]
            (is (= :channel (:kind ev)))
            (is (str/starts-with? (:node ev) "127.0.1.") "a node of the client's cloud"))
          (is (next-matching s #(= "cljps:p.*" (:channel %))))
          (is (<= 0 (cr/publish! c "cljps:news" "hello")))
          (is (= {:type :message :kind :channel :channel "cljps:news" :payload "hello"}
                 (select-keys (next-matching s #(= :message (:type %)))
                              [:type :kind :channel :payload])))
          (cr/publish! c "cljps:p.x" "meow")
          (let [m (next-matching s #(= "meow" (:payload %)))]
            (is (= ["cljps:p.x" "cljps:p.*" :pattern] [(:channel m) (:pattern m) (:kind m)])))
          (cr/remove! s {:channels ["cljps:news"]})
          (is (next-matching s #(= [:unsubscribed "cljps:news"] [(:type %) (:channel %)]))))
        (is (thrown? clojure.lang.ExceptionInfo (cr/subscribe c {:channels [""]}))))
      (testing "a handler on the subscription's thread; with-open stops it"
        (let [got (atom [])
              shard-ch "{cljps}orders"]
          (with-open [_ (cr/subscribe c {:shard-channels [shard-ch]} #(swap! got conj %))]
            (let [deadline (+ (System/nanoTime) 10e9)]
              (while (and (< (System/nanoTime) deadline) (not (some #(= :subscribed (:type %)) @got)))
                (Thread/sleep 10)))
            (cr/spublish! c shard-ch "o1")
            (let [deadline (+ (System/nanoTime) 10e9)]
              (while (and (< (System/nanoTime) deadline) (not (some #(= "o1" (:payload %)) @got)))
                (Thread/sleep 10))))
          (is (= [:subscribed :message] (mapv :type @got)))
          (is (= :shard (:kind (last @got)))))))
    (println "subscriptions: CR_JAVA_CLUSTER_ENV not set; skipped")))
