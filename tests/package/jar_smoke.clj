;; Smoke test of cloudroute.core from the jar, with only Clojure beside it on the
;; class path (tests/package/jar_test.sh): java -cp JAR:CLOJURE clojure.main jar_smoke.clj REPLY_FILE
(require '[cloudroute.core :as cr])
(import '(java.nio.file Files Path))

(defn check [ok what] (when-not ok (throw (AssertionError. (str what)))))

(check (= 1649 (cr/keyslot "user:1000")) "keyslot")
(let [reply (Files/readAllBytes (Path/of (first *command-line-args*) (make-array String 0)))]
  (with-open [t (cr/topology reply :cluster-slots)
              r (cr/router {:local-cidrs ["127.0.1.0/24"] :policy :local-replicas-first} t)]
    (doseq [k ["user:1000" "foo" "bar" "baz"]]
      (let [read (cr/route-read r k)]
        (check (and (.startsWith ^String (:host read) "127.0.1.") (= :local (:tier read))) [k read])
        (check (= :master (:role (cr/route-write r k))) [k :write])))))
(println (str "smoke: cloudroute.core (clojure " (clojure-version) "): ok"))
