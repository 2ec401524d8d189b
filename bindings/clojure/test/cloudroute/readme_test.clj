(ns cloudroute.readme-test
  "The README's Clojure example, line for line (tests/readme/snippets.py fails when the README
  and this file differ; the README's seed \"127.0.1.1:7001\" is `seeds` here), run against the
  harness cluster of tests/java/run.sh and its output checked."
  (:require [cloudroute.core :as cr] ; the example's require, resolved when this compiles
            [clojure.string :as str]
            [clojure.test :refer [deftest is]]))

(defn- first-seed []
  (when-let [env-file (System/getenv "CR_JAVA_CLUSTER_ENV")]
    (some #(when (str/starts-with? % "SEEDS=") (first (str/split (subs % 6) #",")))
          (str/split-lines (slurp env-file)))))

(deftest readme-example
  (if-let [seeds (first-seed)]
    (let [out (with-out-str
                ;; README snippet clojure
                (require '[cloudroute.core :as cr])

                (with-open [r (cr/router {:local-cidrs ["10.0.0.0/24"] :policy :local-replicas-first}
                                         "shard slots=0-16383 master=10.2.0.1:6379 replicas=10.0.0.2:6379\n")]
                  (prn (cr/route-read r "user:1")))   ; {:host "10.0.0.2", :port 6379, :role :replica, :tier :local, ...}
                (with-open [c (cr/client seeds {:local-cidrs ["127.0.1.0/24"]})]
                  (prn (cr/pipeline c [[:set "k" "v"] [:get "k"]])))   ; [true "v"]
                )
          [route pipeline] (str/split-lines out)]
      (is (str/includes? route ":host \"10.0.0.2\"") route)
      (is (str/includes? route ":tier :local") route)
      (is (= "[true \"v\"]" pipeline)))
    (println "readme-example: CR_JAVA_CLUSTER_ENV not set (tests/java/run.sh sets it); skipped")))
