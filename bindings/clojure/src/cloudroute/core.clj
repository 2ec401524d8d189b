(ns cloudroute.core
  "libcloudroute from Clojure: Redis Cluster key slots, cloud-aware read routing, the
  Jedis-compatible rings and the live clients, over the io.cloudroute Java API.

  Configuration is a map, policies are keywords (:master :prefer-replica :local
  :local-replicas-first :nearest), routes and candidates are maps, and every handle
  (router, topology, ring, client) is java.io.Closeable-compatible (AutoCloseable), so
  with-open frees it; a forgotten one is freed by a Cleaner."
  (:import (io.cloudroute Access Candidate Client ClientOptions ClientStats CloudRoute Config
                          HashAlgo HedgeMode NodeInfo NodeStats Policy Ring Ring$Builder RingAlgo RingNaming
                          Route Router ShardGroups Tier Topology Topology$Format)
           (java.nio.charset StandardCharsets)))

(set! *warn-on-reflection* true)

;; ---------------------------------------------------------------- key slots and hashes

(defn keyslot
  "The Redis Cluster slot (0-16383) of a key: a String (its UTF-8 bytes) or a byte array."
  ^long [k]
  (if (string? k) (CloudRoute/keyslot ^String k) (CloudRoute/keyslot ^bytes k)))

(defn keyslots
  "Slots of many keys (Strings or byte arrays) in one native call, as a vector."
  [ks]
  (vec (CloudRoute/keyslots ^java.util.List (vec ks))))

(defn- hash-algo ^HashAlgo [k] (HashAlgo/fromLabel (name k)))

(defn jedis-hash
  "Jedis's Hashing.<algo>.hash(key): algo :murmur (a signed long) or :md5 (0 .. 2^32-1)."
  [algo k]
  (if (string? k)
    (CloudRoute/jedisHash (hash-algo algo) ^String k)
    (CloudRoute/jedisHash (hash-algo algo) ^bytes k)))

(defn jump-hash
  "Jump consistent hash: the bucket (0 .. buckets-1) of a 64-bit key."
  ^long [^long k ^long buckets]
  (CloudRoute/jumpHash k (int buckets)))

(defn family-key
  "The stored key of (family, key) in the family-key design (decimal Jedis MurmurHash text)."
  [^String family k]
  (if (string? k)
    (CloudRoute/familyKey family ^String k)
    (CloudRoute/familyKey family ^bytes k)))

;; ---------------------------------------------------------------- enums <-> keywords

(defn- kw [e] (keyword (.toString ^Object e))) ; an enum's toString is its label
(defn- policy ^Policy [p] (if (instance? Policy p) p (Policy/fromLabel (name p))))

;; ---------------------------------------------------------------- topology

(defn topology
  "A topology: (topology text) from the static text format, or (topology bytes format) from a
  raw CLUSTER SLOTS / CLUSTER SHARDS reply, format :cluster-slots or :cluster-shards."
  (^Topology [^String text] (Topology/parseStatic text))
  (^Topology [^bytes reply format]
   (Topology/parse reply (case format
                           :cluster-slots Topology$Format/CLUSTER_SLOTS
                           :cluster-shards Topology$Format/CLUSTER_SHARDS))))

(defn- node->map [^NodeInfo n]
  {:id (.id n) :host (.host n) :ip (.ip n) :port (.port n) :tls-port (.tlsPort n)
   :address (.address n) :role (kw (.role n)) :health (kw (.health n)) :zone (.zone n)
   :shard (.shard n)})

(defn nodes "The topology's nodes as maps." [^Topology t] (mapv node->map (.nodes t)))

(defn shards
  "The topology's shards as maps {:index :id :ranges [[start end] ...]}."
  [^Topology t]
  (vec (for [i (range (.shardCount t))]
         {:index i :id (.shardId t (int i)) :ranges (mapv vec (.shardRanges t (int i)))})))

;; ---------------------------------------------------------------- configuration

(defn- pairs [m] (if (map? m) (seq m) m))

(defn config
  "A Config from a map (a Config is passed through). Keys, all optional:
    :client-location \"cloud/region/zone\"   :local-cidrs [\"10.0.0.0/24\"]
    :client-zone \"use1-az2\" (the zone the servers report: nodes in it are :local, others :same-region)
    :location-rules {\"10.2.0.0/16\" \"gcp/us-central1\"}   :node-locations {\"host:port\" loc}
    :zones {\"use1-az1\" \"aws/us-east-1/use1-az1\"}   :weights {\"host:port\" 3}
    :address-remaps {\"announced:port\" \"dial:port\"}   :policy :local-replicas-first
    :nearest-margin-us 1000   :breaker {:threshold 3 :cooldown-ms 2000}   :seed 42"
  ^Config [m]
  (if (instance? Config m)
    m
    (let [c (Config.)]
      (try
        (when-let [l (:client-location m)] (.clientLocation c l))
        (when-let [z (:client-zone m)] (.clientZone c z))
        (doseq [cidr (:local-cidrs m)] (.localCidr c cidr))
        (doseq [[cidr loc] (pairs (:location-rules m))] (.locationRule c cidr loc))
        (doseq [[node loc] (pairs (:node-locations m))] (.nodeLocation c node loc))
        (doseq [[zone loc] (pairs (:zones m))] (.zone c zone loc))
        (doseq [[node w] (pairs (:weights m))] (.weight c node (int w)))
        (doseq [[from to] (pairs (:address-remaps m))] (.addressRemap c from to))
        (when-let [p (:policy m)] (.policy c (policy p)))
        (when-let [us (:nearest-margin-us m)] (.nearestMarginUs c (int us)))
        (when-let [{:keys [threshold cooldown-ms] :or {threshold 3 cooldown-ms 2000}} (:breaker m)]
          (.breaker c (int threshold) (int cooldown-ms)))
        (when-let [s (:seed m)] (.seed c (long s)))
        c
        (catch Throwable e (.close c) (throw e))))))

(defmacro ^:private with-config
  "Binds sym to (config m), closing it afterwards when it was made from a map."
  [[sym m] & body]
  `(let [m# ~m
         ~sym (config m#)]
     (try ~@body (finally (when-not (identical? m# ~sym) (.close ~sym))))))

;; ---------------------------------------------------------------- router

(defn router
  "A Router with config (a map or a Config; nil for defaults), on topology when given (a
  Topology, or static text)."
  (^Router [cfg]
   (if (nil? cfg) (Router. nil) (with-config [c cfg] (Router. c))))
  (^Router [cfg topo]
   (let [r (router cfg)]
     (try
       (if (string? topo)
         (with-open [t (topology ^String topo)] (.update r t))
         (.update r ^Topology topo))
       r
       (catch Throwable e (.close r) (throw e))))))

(defn update!
  "Installs a new topology (a Topology or static text) in the router."
  [^Router r topo]
  (if (string? topo)
    (with-open [t (topology ^String topo)] (.update r t))
    (.update r ^Topology topo)))

(defn route->map [^Route r]
  {:host (.host r) :port (.port r) :address (.address r) :role (kw (.role r))
   :tier (kw (.tier r)) :slot (.slot r) :shard (.shard r) :node-handle (.nodeHandle r)})

(defn- candidate->map [^Candidate c]
  {:host (.host c) :port (.port c) :address (.address c) :role (kw (.role c))
   :tier (kw (.tier c)) :rank (.rank c) :weight (.weight c) :rtt-us (.rttUs c)
   :down (.down c) :node-handle (.nodeHandle c)})

(defn route-read
  "The node to read key k from, as a map {:host :port :address :role :tier :slot :shard
  :node-handle}."
  [^Router r k]
  (route->map (if (string? k) (.routeRead r ^String k) (.routeRead r ^bytes k))))

(defn route-write "The master to write key k to, as a map." [^Router r k]
  (route->map (if (string? k) (.routeWrite r ^String k) (.routeWrite r ^bytes k))))

(defn route-read-slot [^Router r slot] (route->map (.routeReadSlot r (int slot))))
(defn route-write-slot [^Router r slot] (route->map (.routeWriteSlot r (int slot))))

(defn candidates
  "The key's read candidates in rank order, as maps."
  [^Router r k]
  (mapv candidate->map (if (string? k) (.candidates r ^String k) (.candidates r ^bytes k))))

(defn explain "Why each candidate of k sits where it does, as text." [^Router r k]
  (if (string? k) (.explain r ^String k) (.explain r ^bytes k)))

(defn report-failure! [^Router r node-handle] (.reportFailure r (int node-handle)))
(defn report-success! [^Router r node-handle] (.reportSuccess r (int node-handle)))
(defn set-rtt! [^Router r node-handle rtt-us] (.setRtt r (int node-handle) (int rtt-us)))
(defn report-moved! [^Router r slot ^String host port] (.reportMoved r (int slot) host (int port)))
(defn report-ask!
  "An ASK redirect: returns the node to send ASKING + the command to, once."
  [^Router r slot ^String host port]
  (route->map (.reportAsk r (int slot) host (int port))))

;; ---------------------------------------------------------------- rings

(defn ring
  "A built ring from a map:
    :algo   :jedis (default), :ketama, :jump, :modulo — or :murmur / :md5, a Jedis ring with
            that hash (Jedis's Hashing.MURMUR_HASH / Hashing.MD5)
    :hash   :default, :murmur, :md5
    :naming :jedis3 (default) or :jedis2
    :key-tags true to hash only Jedis's {tag}
    :shards names in order: strings, nil (unnamed), or maps {:name n :weight w}."
  ^Ring [{:keys [algo hash naming key-tags shards] :or {algo :jedis}}]
  (let [[algo hash] (if (#{:murmur :md5} algo) [:jedis algo] [algo (or hash :default)])
        ^Ring$Builder b (-> (Ring/builder)
                            (.algo (RingAlgo/fromLabel (name algo)))
                            (.hash (hash-algo hash))
                            (.keyTags (boolean key-tags)))]
    (when naming (.naming b (RingNaming/fromLabel (name naming))))
    (doseq [s shards]
      (if (map? s)
        (.shard b ^String (some-> (:name s) name) (int (:weight s 1)))
        (.shard b ^String (some-> s name) (int 1))))
    (.build b)))

(defn locate "The 0-based shard index of key k on ring." ^long [^Ring ring k]
  (if (string? k) (.locate ring ^String k) (.locate ring ^bytes k)))

;; ---------------------------------------------------------------- live cluster client

(def ^:private hedge-modes {:off HedgeMode/OFF :fixed HedgeMode/FIXED :adaptive HedgeMode/ADAPTIVE})

(defn- hedge-mode ^HedgeMode [m]
  (or (hedge-modes m)
      (throw (IllegalArgumentException.
              (str "cloudroute: :hedge-mode " (pr-str m) " is none of " (pr-str (keys hedge-modes)))))))

(defn- client-options ^ClientOptions [{:keys [connect-timeout-ms command-timeout-ms pool-size
                                              refresh-interval-ms username password client-name
                                              hedge-mode hedge-delay-ms read-your-writes-ms db]}]
  (let [o (ClientOptions.)]
    (when hedge-mode (.hedgeMode o (cloudroute.core/hedge-mode hedge-mode)))
    (when hedge-delay-ms (.hedgeDelayMs o (int hedge-delay-ms)))
    (when connect-timeout-ms (.connectTimeoutMs o (int connect-timeout-ms)))
    (when command-timeout-ms (.commandTimeoutMs o (int command-timeout-ms)))
    (when pool-size (.poolSize o (int pool-size)))
    (when refresh-interval-ms (.refreshIntervalMs o (int refresh-interval-ms)))
    (when password (.auth o username password))
    (when client-name (.clientName o client-name))
    (when read-your-writes-ms (.readYourWritesMs o (int read-your-writes-ms)))
    (when db (.db o (int db)))
    o))

(defn client
  "A live cluster client through seeds (\"host:port,...\") with config (a map or Config) and
  options {:connect-timeout-ms :command-timeout-ms :pool-size :refresh-interval-ms
  :username :password :client-name :hedge-mode (:off :fixed :adaptive) :hedge-delay-ms
  :read-your-writes-ms (after a write to a slot, its reads go to the master for that long)
  :db (SELECT db on every connection; default 0)}."
  (^Client [seeds cfg] (client seeds cfg {}))
  (^Client [^String seeds cfg opts]
   (if (nil? cfg)
     (Client/connect seeds nil (client-options opts))
     (with-config [c cfg] (Client/connect seeds c (client-options opts))))))

(defn- utf8 [v] (if (bytes? v) (String. ^bytes v StandardCharsets/UTF_8) v))

(defn command
  "Any command on one key: (command c :read \"HGET\" \"h\" \"f\"); the key is the first
  argument after the command name. Bulk strings come back as byte arrays."
  [^Client c access & args]
  (.command c (if (= access :write) Access/WRITE Access/READ) (int 1) (object-array args)))

(defn fetch
  "GET of key k; the value as a String (UTF-8), nil when none."
  [^Client c k]
  (utf8 (.command c Access/READ (int 1) (object-array ["GET" k]))))

(defn store!
  "SET k v, with a time to live in ms when ttl-ms is given."
  ([^Client c k v] (.set c k v))
  ([^Client c k v ttl-ms] (.set c k v (long ttl-ms))))

(defn mget "MGET of keys in any slots: values as Strings (nil when none)." [^Client c ks]
  (mapv utf8 (.mget c (object-array ks))))

(defn mset! "MSET of a map of keys to values, in any slots." [^Client c m] (.mset c ^java.util.Map m))

(defn del! "DEL of keys in any slots; how many existed." [^Client c ks] (.del c (object-array ks)))

(defn refresh! [^Client c] (.refresh c))

(defn client-router "The client's router (borrowed: valid while the client is open)." ^Router
  [^Client c]
  (.router c))

(defn stats
  "The client's counters as a map (:reads-by-tier keyed by tier keyword)."
  [^Client c]
  (let [^ClientStats s (.stats c)]
    {:reads (.reads s) :writes (.writes s) :fallbacks (.fallbacks s) :moved (.moved s)
     :ask (.ask s) :retries (.retries s) :conn-errors (.connErrors s) :timeouts (.timeouts s)
     :server-errors (.serverErrors s) :refreshes (.refreshes s)
     :refresh-failures (.refreshFailures s) :connections (.connections s)
     :hedges (.hedges s) :hedges-won (.hedgesWon s) :hedges-denied (.hedgesDenied s)
     :poisoned (.poisoned s)
     :reads-by-tier (into {} (for [^Tier t (Tier/values)] [(kw t) (.readsByTier s t)]))}))

(defn node-stats "Per-node statistics as maps." [^Client c]
  (mapv (fn [^NodeStats n]
          {:address (.address n) :host (.host n) :port (.port n) :reads (.reads n)
           :writes (.writes n) :errors (.errors n) :latency-us (.latencyUs n)})
        (.nodeStats c)))

;; ---------------------------------------------------------------- shard groups

(defn shard-groups
  "A shard-group table: {:config cfg :ring ring :groups [{:name n :master \"host:port\"
  :replicas [\"host:port\" ...]} ...]}; ring shard i is group i."
  ^ShardGroups [{:keys [config ring groups]}]
  (let [^ShardGroups g (if config
                         (with-config [c config] (ShardGroups. c))
                         (ShardGroups. nil))]
    (try
      (doseq [{:keys [name master replicas]} groups]
        (let [i (.add g name)]
          (when master
            (let [colon (.lastIndexOf ^String master ":")]
              (.setMaster g i (subs master 0 colon) (Integer/parseInt (subs master (inc colon))))))
          (when (seq replicas) (.setReplicas g i (vec replicas)))))
      (when ring (.setRing g ^Ring ring))
      g
      (catch Throwable e (.close g) (throw e)))))
