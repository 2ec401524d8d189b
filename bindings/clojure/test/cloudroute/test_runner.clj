(ns cloudroute.test-runner
  "Runs the cloudroute.core tests (Maven's integration-test phase, tests/java/run.sh); exits
  non-zero on a failure or an error."
  (:require [clojure.test :as t]
            [cloudroute.core-test]
            [cloudroute.pubsub-test]
            [cloudroute.readme-test]
            [cloudroute.sharded-test]))

(defn -main [& _]
  (let [{:keys [fail error test pass]} (t/run-tests 'cloudroute.core-test 'cloudroute.pubsub-test
                                                    'cloudroute.readme-test 'cloudroute.sharded-test)]
    (println (format "%d passed, %d failed" (+ pass 0) (+ fail error)))
    (shutdown-agents)
    (System/exit (if (and (pos? test) (zero? (+ fail error))) 0 1))))
