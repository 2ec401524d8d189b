(ns cloudroute.core
  "libcloudroute from Clojure: Redis Cluster key slots, cloud-aware read routing, the
  Jedis-compatible rings and the live clients, over the io.cloudroute Java API.

  Configuration is a map, policies are keywords (:master :prefer-replica :local
  :local-replicas-first :nearest), routes and candidates are maps, and every handle
  (router, topology, ring, client, script, transaction) is java.io.Closeable-compatible
  (AutoCloseable), so with-open frees it; a forgotten one is freed by a Cleaner.

  The live client: typed commands (fetch, store!, hgetall, zadd! ...), pipeline (a vector of
  command vectors in, a vector of results out), scan (a reducible of every key), eval-script
  and fcall, transaction (WATCH/MULTI/EXEC pinned to one slot), on-node / on-masters /
  on-all-nodes. The pre-sharded client (sharded-client: ShardedJedis's servers and ring) and
  the Sentinel client (sentinel-client) take the same command, fetch, store!, mget, mset!,
  del!, exists and expire! (and, pre-sharded, pipeline, scan, eval-script, the node commands
  and the statistics). Failures are ex-info
  with the status as data (:cloudroute/status, :cloudroute/code, :cloudroute/kind; a Sentinel
  batch adds :cloudroute/failed-keys and :cloudroute/results); the routing functions throw
  the Java CloudRouteException itself.

  Asynchronous calls (command-async, fetch-async, store-async!, incr-async!, mget-async,
  mset-async!, del-async!, exists-async, pipeline-async ...; all but pipeline-async on the
  Sentinel and pre-sharded clients too) return a java.util.concurrent.CompletableFuture at once
  (deref-able: @f, (deref f ms nil)), with no thread per call; it fails with the same ex-info as
  the blocking call (deref throws an ExecutionException whose cause it is; a Sentinel batch's
  carries :cloudroute/failed-keys and :cloudroute/results).

  Publish / subscribe: subscribe (a Subscription, with-open closes it; next-message reads it,
  or a handler fn gets every message on the subscription's thread), add! / remove! of names,
  publish! and spublish!. Messages and events are maps: {:type :message, :kind :channel,
  :channel \"news\", :payload \"...\", :payload-bytes #bytes, :node \"host:port\"} (:pattern for a
  pattern's match, :reason for a :moving event)."
  (:import (io.cloudroute Access AsyncKeyClient CallOptions Candidate ChannelKind Client ClientOptions
                          ClientStats CloudRoute CloudRouteException Config HashAlgo HedgeMode Message
                          NodeInfo
                          NodeStats Pipeline Policy Ring Ring$Builder RingAlgo RingNaming Route Router
                          Scan ScanOptions Script Selection SentinelClient SentinelOptions ShardGroups
                          ShardedClient ShardedOptions Subscription Subscription$Listener Tier Topology
                          Topology$Format Transaction)
           (java.nio.charset StandardCharsets)
           (java.util.concurrent CompletableFuture CompletionException Executor)
           (java.util.function BiFunction)))

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
(defn- selection ^Selection [s] (if (instance? Selection s) s (Selection/fromLabel (name s))))

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
    :selection :least-loaded (or :random, :round-robin: how a read picks among equal candidates)
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
        (when-let [s (:selection m)] (.selection c (selection s)))
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

(declare client-groups)

(defn locate
  "The 0-based shard index of key k on a ring, or on the ring of a sharded or Sentinel client."
  ^long [ring k]
  (if (instance? Ring ring)
    (if (string? k) (.locate ^Ring ring ^String k) (.locate ^Ring ring ^bytes k))
    (.locate ^ShardGroups (client-groups ring) k)))

;; ---------------------------------------------------------------- live cluster client

(defn- status-data
  "ex-data of a CloudRouteException: {:cloudroute/status :eredis, :cloudroute/code -14,
  :cloudroute/kind :server-error}. The kind is the status's exception family
  (CloudRouteException.family, docs/errors.md) as a keyword: :invalid-argument, :parse,
  :unavailable, :not-found, :connection, :server-error, :version or :error (internal)."
  [^CloudRouteException e]
  {:cloudroute/status (keyword (.toLowerCase (subs (CloudRouteException/statusName (.status e)) 3)))
   :cloudroute/code (.status e)
   :cloudroute/kind (case (.family e)
                      "server" :server-error
                      "internal" :error
                      (keyword (.replace (.family e) "_" "-")))})

(declare utf8)

(defn- ex
  "A CloudRouteException as ex-info. A batch whose keys partly failed (the Sentinel client's
  mget, mset!, del!, exists) adds :cloudroute/failed-keys (as given, in call order) and
  :cloudroute/results (per key: the value (mget, a String) or nil, a failed key's ex-info)."
  [^CloudRouteException e]
  (ex-info (.getMessage e)
           (cond-> (status-data e)
             (seq (.failedKeys e))
             (assoc :cloudroute/failed-keys (vec (.failedKeys e))
                    :cloudroute/results (mapv #(if (instance? CloudRouteException %) (ex %) (utf8 %))
                                              (.results e))))
           e))

(defmacro ^:private checked
  "body, a CloudRouteException rethrown as ex-info with its status as data (the Java exception
  as the cause)."
  [& body]
  `(try ~@body (catch CloudRouteException e# (throw (ex e#)))))

(defn- in-place
  "A reply of a pipeline or node command: a failure (a CloudRouteException in place) as
  ex-info, not thrown."
  [v]
  (if (instance? CloudRouteException v) (ex v) v))

(def ^:private hedge-modes
  "{:off HedgeMode/OFF ...}: the generated enum's labels as keywords."
  (into {} (map (fn [^HedgeMode m] [(keyword (.label m)) m])) (HedgeMode/values)))

(defn- hedge-mode ^HedgeMode [m]
  (or (hedge-modes m)
      (throw (IllegalArgumentException.
              (str "cloudroute: :hedge-mode " (pr-str m) " is none of " (pr-str (keys hedge-modes)))))))

(def ^:private tiers {:local Tier/LOCAL :same-region Tier/SAME_REGION :same-cloud Tier/SAME_CLOUD
                      :other-cloud Tier/OTHER_CLOUD :unknown Tier/UNKNOWN})

(defn- tier-timeouts!
  "Applies :command-timeout-ms (ms, or {:local 200 :other-cloud 1000 ...}) with set-all and
  set-tier."
  [ms set-all set-tier]
  (if (map? ms)
    (doseq [[t v] ms]
      (set-tier (or (tiers t) (throw (IllegalArgumentException. (str "cloudroute: no tier " (pr-str t)))))
                (int v)))
    (when ms (set-all (int ms)))))


(defn- client-options
  "ClientOptions from the option map of `client` (every key optional)."
  ^ClientOptions [{:keys [connect-timeout-ms command-timeout-ms pool-size pool-idle-ms
                          refresh-interval-ms refresh-min-gap-ms max-redirects max-retries
                          retry-backoff-ms failures-before-refresh tcp-keepalive-s
                          tcp-user-timeout-ms max-reply-elements max-bulk-len max-reply-bytes
                          username password client-name tls tls-verify tls-ca-file tls-ca-dir
                          tls-cert-file tls-key-file tls-server-name replica-max-lag-bytes
                          replica-max-lag-s hedge-mode hedge-delay-ms hedge-min-delay-ms
                          hedge-budget-percent hedge-percentile read-your-writes-ms db
                          shared-connections async-executor]}]
  (let [o (ClientOptions.)]
    (when hedge-mode (.hedgeMode o (cloudroute.core/hedge-mode hedge-mode)))
    (when hedge-delay-ms (.hedgeDelayMs o (int hedge-delay-ms)))
    (when hedge-min-delay-ms (.hedgeMinDelayMs o (int hedge-min-delay-ms)))
    (when hedge-budget-percent (.hedgeBudgetPercent o (int hedge-budget-percent)))
    (when hedge-percentile (.hedgePercentile o (double hedge-percentile)))
    (when connect-timeout-ms (.connectTimeoutMs o (int connect-timeout-ms)))
    (tier-timeouts! command-timeout-ms #(.commandTimeoutMs o (int %))
                    #(.commandTimeoutMs o ^Tier %1 (int %2)))
    (when pool-size (.poolSize o (int pool-size)))
    (when pool-idle-ms (.poolIdleMs o (int pool-idle-ms)))
    (when refresh-interval-ms (.refreshIntervalMs o (int refresh-interval-ms)))
    (when refresh-min-gap-ms (.refreshMinGapMs o (int refresh-min-gap-ms)))
    (when max-redirects (.maxRedirects o (int max-redirects)))
    (when max-retries (.maxRetries o (int max-retries)))
    (when retry-backoff-ms (.retryBackoffMs o (int retry-backoff-ms)))
    (when failures-before-refresh (.failuresBeforeRefresh o (int failures-before-refresh)))
    (when tcp-keepalive-s (.tcpKeepaliveS o (int tcp-keepalive-s)))
    (when tcp-user-timeout-ms (.tcpUserTimeoutMs o (int tcp-user-timeout-ms)))
    (when max-reply-elements (.maxReplyElements o (int max-reply-elements)))
    (when max-bulk-len (.maxBulkLen o (long max-bulk-len)))
    (when max-reply-bytes (.maxReplyBytes o (long max-reply-bytes)))
    (when (or replica-max-lag-bytes replica-max-lag-s)
      (.replicaMaxLag o (long (or replica-max-lag-bytes 0)) (int (or replica-max-lag-s 0))))
    (when (or username password) (.auth o username password))
    (when client-name (.clientName o client-name))
    (when (some? tls) (.tls o (boolean tls) (if (some? tls-verify) (boolean tls-verify) true)))
    (when (or tls-ca-file tls-ca-dir) (.tlsCa o tls-ca-file tls-ca-dir))
    (when (or tls-cert-file tls-key-file) (.tlsClientCert o tls-cert-file tls-key-file))
    (when tls-server-name (.tlsServerName o tls-server-name))
    (when read-your-writes-ms (.readYourWritesMs o (int read-your-writes-ms)))
    (when db (.db o (int db)))
    (when shared-connections (.sharedConnections o (int shared-connections)))
    (when async-executor (.asyncExecutor o ^Executor async-executor))
    o))

(defn client
  "A live cluster client through seeds (\"host:port,...\") with config (a map or Config; nil
  for defaults) and options, all optional (the library's defaults otherwise):
    :connect-timeout-ms  :command-timeout-ms (ms, or {:local 200 :other-cloud 1000 ...})
    :pool-size :pool-idle-ms :refresh-interval-ms :refresh-min-gap-ms :max-redirects
    :max-retries :retry-backoff-ms :failures-before-refresh :tcp-keepalive-s
    :tcp-user-timeout-ms :max-reply-elements :max-bulk-len :max-reply-bytes
    :username :password :client-name
    :tls true :tls-verify :tls-ca-file :tls-ca-dir :tls-cert-file :tls-key-file :tls-server-name
    :replica-max-lag-bytes :replica-max-lag-s (a replica further behind is read last)
    :hedge-mode (:off :fixed :adaptive) :hedge-delay-ms :hedge-min-delay-ms
    :hedge-budget-percent :hedge-percentile
    :read-your-writes-ms (after a write to a slot, its reads go to the master for that long)
    :db (SELECT db on every connection; default 0)
    :shared-connections (n connections per node shared by every thread; default 2; 0: off)
    :async-executor (a java.util.concurrent.Executor completing the asynchronous calls'
      futures; default a small shared pool of daemon threads, never the library's engine thread).
  The calls on a client throw ex-info whose data holds the status
  ({:cloudroute/status :etimeout :cloudroute/code -13 :cloudroute/kind :connection}), the
  Java CloudRouteException as its cause."
  (^Client [seeds cfg] (client seeds cfg {}))
  (^Client [^String seeds cfg opts]
   (checked
    (if (nil? cfg)
      (Client/connect seeds nil (client-options opts))
      (with-config [c cfg] (Client/connect seeds c (client-options opts)))))))

(defmacro ^:private on-client
  "body with sym bound to the client c, hinted as the class it is among classes (the clients
  the call exists on: Client, ShardedClient, SentinelClient); another value is refused."
  [[sym c classes] & body]
  (let [v (gensym "client")]
    `(let [~v ~c]
       (cond
         ~@(mapcat (fn [cls] [`(instance? ~cls ~v) `(let [~(with-meta sym {:tag cls}) ~v] ~@body)])
                   classes)
         :else (throw (IllegalArgumentException.
                       (str "cloudroute: not one of " '~classes ": " (pr-str (type ~v)))))))))

(defn- string-keys [m] (into {} (for [[k v] m] [(name k) v])))
(defn- utf8 [v] (if (bytes? v) (String. ^bytes v StandardCharsets/UTF_8) v))
(defn- access ^Access [a] (case a :read Access/READ :auto Access/AUTO Access/WRITE))
(defn- call-options ^CallOptions [{:keys [timeout-ms]}]
  (when timeout-ms (.timeoutMs (CallOptions.) (int timeout-ms))))

(defn command
  "Any command on one key: (command c :read \"HGET\" \"h\" \"f\"); the key is the first
  argument after the command name. :auto lets the server's command table decide whether it is
  a read and which argument is its key: (command c :auto \"EVAL_RO\" \"...\" \"1\" \"k\").
  Bulk strings come back as byte arrays."
  [c access & args]
  (checked (on-client [c c [Client ShardedClient SentinelClient]]
             (.command c (case access :write Access/WRITE :auto Access/AUTO Access/READ)
                       (int (if (= access :auto) 0 1)) (object-array args)))))

(defn command-opts
  "Any command with options {:access :read|:write|:auto (default :write) :key-index n
  :timeout-ms n} (:key-index defaults to 1, to 0 with :auto: the server's key specs find it):
  (command-opts c {:access :write :timeout-ms 5000} [\"BLPOP\" \"q\" \"4\"]). :timeout-ms
  replaces the node's tier timeout for this call (its passing is not a node failure)."
  [c {:keys [key-index] :as opts} args]
  (checked (on-client [c c [Client ShardedClient]]
             (.command c (call-options opts) (access (:access opts :write))
                       (int (or key-index (if (= (:access opts) :auto) 0 1)))
                       (object-array args)))))

(defn fetch
  "GET of key k; the value as a String (UTF-8), nil when none."
  [c k]
  (utf8 (command c :read "GET" k)))

(defn store!
  "SET k v, with a time to live in ms when ttl-ms is given."
  ([c k v] (checked (on-client [c c [Client ShardedClient SentinelClient]] (.set c k v))))
  ([c k v ttl-ms]
   (checked (on-client [c c [Client ShardedClient SentinelClient]] (.set c k v (long ttl-ms))))))

(defn mget
  "MGET of keys in any slots (shards, groups): values as Strings (nil when none)."
  [c ks]
  (checked (on-client [c c [Client ShardedClient SentinelClient]]
             (mapv utf8 (.mget c (object-array ks))))))

(defn mset! "MSET of a map of keys to values, in any slots (shards, groups)." [c m]
  (checked (on-client [c c [Client ShardedClient SentinelClient]] (.mset c ^java.util.Map m))))

(defn del! "DEL of keys in any slots (shards, groups); how many existed." [c ks]
  (checked (on-client [c c [Client ShardedClient SentinelClient]] (.del c (object-array ks)))))

;; Typed commands on String keys and values (Client's): Clojure collections back.
(defn incr! "INCRBY k by (1): the new value." ([^Client c k] (incr! c k 1))
  ([^Client c ^String k by] (checked (.incrBy c k (long by)))))
(defn exists "How many of keys exist (in any slots, shards, groups)." [c ks]
  (checked
   (if (instance? Client c)
     (.exists ^Client c ^"[Ljava.lang.String;" (into-array String ks))
     (on-client [c c [ShardedClient SentinelClient]] (.exists c (object-array ks))))))
(defn expire! "EXPIRE k seconds: true when set." [c k s]
  (checked
   (if (instance? Client c)
     (.expire ^Client c ^String k (long s))
     (on-client [c c [ShardedClient SentinelClient]] (.expire c k (long s))))))
(defn ttl "TTL k: seconds left, -1 without a timeout, -2 when missing." [^Client c ^String k]
  (checked (.ttl c k)))
(defn hget [^Client c ^String k ^String f] (checked (.hget c k f)))
(defn hset! "HSET of a map of fields: fields added." [^Client c ^String k m]
  (checked (.hset c k ^java.util.Map (string-keys m))))
(defn hdel! [^Client c ^String k fields]
  (checked (.hdel c k ^"[Ljava.lang.String;" (into-array String fields))))
(defn hgetall "HGETALL as a map of Strings." [^Client c ^String k] (checked (into {} (.hgetAll c k))))
(defn lpush! [^Client c ^String k vs]
  (checked (.lpush c k ^"[Ljava.lang.String;" (into-array String vs))))
(defn rpush! [^Client c ^String k vs]
  (checked (.rpush c k ^"[Ljava.lang.String;" (into-array String vs))))
(defn lrange [^Client c ^String k start stop] (checked (vec (.lrange c k (long start) (long stop)))))
(defn blpop
  "BLPOP k timeout-s: the value, nil when none came in time; opts {:timeout-ms n} gives the
  call a timeout of its own (needed for timeout-s 0, forever)."
  ([^Client c ^String k timeout-s] (checked (.blpop c k (double timeout-s))))
  ([^Client c ^String k timeout-s opts]
   (checked (.blpop c (call-options opts) k (double timeout-s)))))
(defn sadd! [^Client c ^String k members]
  (checked (.sadd c k ^"[Ljava.lang.String;" (into-array String members))))
(defn smembers [^Client c ^String k] (checked (set (.smembers c k))))
(defn zadd! "ZADD of a map member -> score: members added." [^Client c ^String k m]
  (checked (.zadd c k ^java.util.Map (into {} (for [[mb s] m] [(name mb) (double s)])))))
(defn zrange [^Client c ^String k start stop] (checked (vec (.zrange c k (long start) (long stop)))))
(defn zrange-with-scores "ZRANGE ... WITHSCORES: [[member score] ...] in order."
  [^Client c ^String k start stop]
  (checked (mapv (fn [[m s]] [m s]) (.zrangeWithScores c k (long start) (long stop)))))
(defn zscore [^Client c ^String k ^String m] (checked (.zscore c k m)))

;; ---- asynchronous calls (Client's commandAsync ...; no thread per call)

(defn- async
  "The future of a Java asynchronous call, its value passed through convert and its
  CloudRouteException turned into ex-info (the stage runs where the call completes: the
  client's executor, never the library's engine thread)."
  ^CompletableFuture [^CompletableFuture f convert]
  (.handle f (reify BiFunction
               (apply [_ v e]
                 (if (nil? e)
                   (convert v)
                   (let [cause (if (instance? CompletionException e) (.getCause ^Throwable e) e)]
                     (throw (CompletionException.
                             ^Throwable (if (instance? CloudRouteException cause)
                                          (ex cause)
                                          cause)))))))))

;; Each takes a cluster, Sentinel or pre-sharded client (an AsyncKeyClient); pipeline-async a
;; cluster client.

(defn command-async
  "command without waiting: a CompletableFuture of the reply (bulk strings as byte arrays), on a
  cluster, Sentinel or pre-sharded client (the last two refuse :auto, as command does). Bad
  arguments and a closed client throw at once; everything else fails the future."
  [c access & args]
  (checked (on-client [c c [AsyncKeyClient]]
             (async (.commandAsync c (case access :write Access/WRITE :auto Access/AUTO Access/READ)
                                   (int (if (= access :auto) 0 1)) (object-array args))
                    identity))))

(defn fetch-async "fetch without waiting: a future of the String value (nil when none)."
  [c k]
  (checked (on-client [c c [AsyncKeyClient]]
             (async (.commandAsync c Access/READ (int 1) (object-array ["GET" k])) utf8))))

(defn store-async!
  "store! without waiting: a future of nil once SET k v (PX ttl-ms) was applied."
  ([c k v] (checked (on-client [c c [AsyncKeyClient]] (async (.setAsync c k v) identity))))
  ([c k v ttl-ms]
   (checked (on-client [c c [AsyncKeyClient]]
              (async (.setAsync c k v (long ttl-ms)) identity)))))

(defn incr-async! "INCRBY k by (1) without waiting: a future of the new value."
  ([c k] (incr-async! c k 1))
  ([c ^String k by]
   (checked (on-client [c c [AsyncKeyClient]] (async (.incrByAsync c k (long by)) identity)))))
(defn del-async!
  "DEL without waiting: of one key (a future of 1 or 0) or of a collection of keys in any slots,
  shards or groups (a future of how many existed; fails as mget-async)."
  [c k]
  (checked (on-client [c c [AsyncKeyClient]]
             (async (if (coll? k) (.delAsync c (object-array k)) (.delAsync c ^String k))
                    identity))))
(defn exists-async
  "EXISTS without waiting: of one key (a future of 1 or 0) or of a collection of keys in any
  slots, shards or groups (a future of how many exist, a key named twice counting twice; fails as
  mget-async)."
  [c k]
  (checked (on-client [c c [AsyncKeyClient]]
             (async (if (coll? k) (.existsAsync c (object-array k)) (.existsAsync c ^String k))
                    identity))))
(defn mget-async
  "mget without waiting: a future of the values of keys in any slots (shards, groups) as Strings
  (nil when none), every node's share in flight at once. It fails with mget's ex-info: on a
  Sentinel client a failed group's keys are in :cloudroute/failed-keys and every key's result in
  :cloudroute/results, the other keys' values there."
  [c ks]
  (checked (on-client [c c [AsyncKeyClient]] (async (.mgetAsync c (object-array ks)) #(mapv utf8 %)))))
(defn mset-async!
  "mset! without waiting: a future of nil once every slot's (shard's, group's) share was written
  (not atomic across them: a failed share fails the future as mget-async says, others may have
  been written)."
  [c m]
  (checked (on-client [c c [AsyncKeyClient]] (async (.msetAsync c ^java.util.Map m) identity))))
(defn hget-async [c ^String k ^String f]
  (checked (on-client [c c [AsyncKeyClient]] (async (.hgetAsync c k f) identity))))
(defn hset-async! "HSET k f v without waiting: a future of the fields added."
  [c ^String k ^String f ^String v]
  (checked (on-client [c c [AsyncKeyClient]] (async (.hsetAsync c k f v) identity))))

;; ---- pipelines

(defn- queue! [^Pipeline p [op & args :as cmd]]
  (let [strs (fn [xs] ^"[Ljava.lang.String;" (into-array String xs))]
    (case op
      :get (.get p ^String (first args))
      :set (if (= 3 (count args))
             (.set p ^String (first args) ^String (second args) (long (nth args 2)))
             (.set p ^String (first args) ^String (second args)))
      :incr (.incrBy p ^String (first args) (long (or (second args) 1)))
      :del (.del p (strs args))
      :exists (.exists p (strs args))
      :mget (.mget p (strs args))
      :expire (.expire p ^String (first args) (long (second args)))
      :ttl (.ttl p ^String (first args))
      :hget (.hget p ^String (first args) ^String (second args))
      :hset (.hset p ^String (first args) ^java.util.Map (string-keys (second args)))
      :hgetall (.hgetAll p ^String (first args))
      :rpush (.rpush p ^String (first args) (strs (rest args)))
      :lrange (.lrange p ^String (first args) (long (second args)) (long (nth args 2)))
      :sadd (.sadd p ^String (first args) (strs (rest args)))
      :smembers (.smembers p ^String (first args))
      :zadd (.zadd p ^String (first args)
                   ^java.util.Map (into {} (for [[m s] (second args)] [(name m) (double s)])))
      :zrange (.zrange p ^String (first args) (long (second args)) (long (nth args 2)))
      :read (.read p (object-array args))
      :write (.write p (object-array args))
      :node (.onNode p (access (first args)) ^String (second args) (object-array (nnext args)))
      (throw (IllegalArgumentException. (str "cloudroute: no pipeline command " (pr-str cmd)))))))

(defn- clojure-value [v]
  (cond (instance? java.util.Map v) (into {} v)
        (instance? java.util.Set v) (set v)
        (instance? java.util.List v) (vec v)
        :else (in-place v)))

(defn pipeline
  "Runs commands at once — any mix, in any slots, each routed by its key (grouped per node,
  every node in flight together) — and returns their results in order, a failed command's
  ex-info in its place (not thrown). Commands are vectors:
    [:get k] [:set k v] [:set k v ttl-ms] [:incr k] [:incr k by] [:del k ...] [:exists k ...]
    [:mget k ...] [:expire k s] [:ttl k] [:hget k f] [:hset k {f v}] [:hgetall k]
    [:rpush k v ...] [:lrange k start stop] [:sadd k m ...] [:smembers k] [:zadd k {m score}]
    [:zrange k start stop] [:read \"CMD\" k arg ...] [:write \"CMD\" k arg ...]
    [:node :read \"host:port\" \"PING\"]
  (pipeline c [[:set \"k\" \"v\"] [:get \"k\"]]) => [true \"v\"]"
  [c cmds]
  (checked
   (let [^Pipeline p (on-client [c c [Client ShardedClient]] (.pipeline c))]
     (doseq [cmd cmds] (queue! p cmd))
     (mapv clojure-value (.execute p)))))

(defn pipeline-async
  "pipeline without waiting (a cluster Client's): a future of the same vector of results, a failed
  command's ex-info in its place; the future fails with a :econn ex-info (\"cancelled: ...\")
  when the client is closed with it in flight. Bad commands and a closed client throw at once."
  [^Client c cmds]
  (checked
   (let [p (.pipeline c)]
     (doseq [cmd cmds] (queue! p cmd))
     (async (.executeAsync p) #(mapv clojure-value %)))))

;; ---- SCAN, scripts, transactions, node commands

(defn scan
  "Every key of the cluster (Strings), each shard scanned once on the node a read would use:
  a reducible (into, reduce, run!, transduce) that opens a SCAN when reduced and closes it when
  done, early or not. opts: {:match \"user:*\" :count 100 :type \"hash\" :timeout-ms n}.
  (into #{} (scan c {:match \"user:*\"}))"
  ([c] (scan c {}))
  ([c {:keys [match count type timeout-ms]}]
   (reify clojure.lang.IReduceInit
     (reduce [_ f init]
       (checked
        (with-open [^Scan s (let [o (cond-> (ScanOptions.)
                                      match (.match ^String match)
                                      count (.count (int count))
                                      type (.type ^String type)
                                      timeout-ms (.timeoutMs (int timeout-ms)))]
                              (on-client [c c [Client ShardedClient]] (.scan c o)))]
          (loop [acc init]
            (if (.hasNext s)
              (let [acc (f acc (String. ^bytes (.next s) StandardCharsets/UTF_8))]
                (if (reduced? acc) @acc (recur acc)))
              acc))))))))

(defn script
  "A Lua script (with-open it): eval-script sends EVALSHA and recovers from NOSCRIPT."
  ^Script [^String body]
  (checked (Script. body)))

(defn eval-script
  "EVALSHA of script with keys (one slot) and args; opts {:read-only true (EVALSHA_RO, a
  replica may serve it) :timeout-ms n}. A node that lost the script gets it again."
  ([c s keys args] (eval-script c s keys args {}))
  ([c ^Script s keys args {:keys [read-only] :as opts}]
   (checked (on-client [c c [Client ShardedClient]]
              (.eval c (call-options opts) s (boolean read-only) (vec keys) (vec args))))))

(defn fcall
  "FCALL function with keys (one slot) and args; opts {:read-only true (FCALL_RO) :timeout-ms n}."
  ([c f keys args] (fcall c f keys args {}))
  ([^Client c ^String f keys args {:keys [read-only] :as opts}]
   (checked (.fcall c (call-options opts) f (boolean read-only) (vec keys) (vec args)))))

(defn transaction
  "A connection pinned to the master of key k's slot (with-open it), for watch!, multi!,
  tx-command and exec!; keys of another slot are refused before they are sent."
  ^Transaction [^Client c k]
  (checked (.transaction c k)))

(defn tx-command
  "Any command on the pinned connection; its key is its first argument (\"QUEUED\" inside
  MULTI)."
  [^Transaction t & args]
  (checked (.command t (object-array args))))

(defn watch! [^Transaction t & ks] (checked (.watch t (object-array ks))))
(defn multi! [^Transaction t] (checked (.multi t)))
(defn exec! "EXEC: the replies as a vector, nil when a watched key changed." [^Transaction t]
  (checked (some-> (.exec t) vec)))
(defn discard! [^Transaction t] (checked (.discard t)))

(defn on-node
  "A keyless command on the node \"host:port\": its reply (thrown on failure)."
  [c ^String node & args]
  (checked (on-client [c c [Client ShardedClient]] (.onNode c node (object-array args)))))

(defn on-masters
  "A keyless command on every master: {\"host:port\" reply}, a failure as ex-info in place."
  [c & args]
  (checked (into {} (for [[a v] (on-client [c c [Client ShardedClient]] (.onMasters c (object-array args)))]
                      [a (in-place v)]))))

(defn on-all-nodes
  "As on-masters, on every master and replica."
  [c & args]
  (checked (into {} (for [[a v] (on-client [c c [Client ShardedClient]] (.onAllNodes c (object-array args)))]
                      [a (in-place v)]))))

(defn dbsize "DBSIZE summed over the masters." [^Client c] (checked (.dbSize c)))

(defn refresh! [^Client c] (checked (.refresh c)))

(defn client-router "The client's router (borrowed: valid while the client is open)." ^Router
  [^Client c]
  (.router c))

(defn stats
  "The client's counters as a map (:reads-by-tier keyed by tier keyword)."
  [c]
  (let [^ClientStats s (on-client [c c [Client ShardedClient]] (.stats c))]
    {:reads (.reads s) :writes (.writes s) :fallbacks (.fallbacks s) :moved (.moved s)
     :ask (.ask s) :retries (.retries s) :conn-errors (.connErrors s) :timeouts (.timeouts s)
     :server-errors (.serverErrors s) :refreshes (.refreshes s)
     :refresh-failures (.refreshFailures s) :connections (.connections s)
     :hedges (.hedges s) :hedges-won (.hedgesWon s) :hedges-denied (.hedgesDenied s)
     :poisoned (.poisoned s)
     :reads-by-tier (into {} (for [^Tier t (Tier/values)] [(kw t) (.readsByTier s t)]))}))

(defn node-stats "Per-node statistics as maps." [c]
  (mapv (fn [^NodeStats n]
          {:address (.address n) :host (.host n) :port (.port n) :reads (.reads n)
           :writes (.writes n) :errors (.errors n) :latency-us (.latencyUs n)})
        (on-client [c c [Client ShardedClient SentinelClient]] (.nodeStats c))))

;; ---------------------------------------------------------------- publish / subscribe

(defn message->map
  "A Message as a map: :type (:message :subscribed :resubscribed :moving :unsubscribed),
  :kind (:channel :pattern :shard), :channel, :node, and where they apply :pattern, :payload
  (a String, UTF-8), :payload-bytes and :reason."
  [^Message m]
  (cond-> {:type (kw (.type m)) :kind (kw (.kind m)) :channel (.channelString m) :node (.node m)}
    (.patternString m) (assoc :pattern (.patternString m))
    (.payloadString m) (assoc :payload (.payloadString m) :payload-bytes (.payload m))
    (seq (.reason m)) (assoc :reason (.reason m))))

(defn- names!
  "Adds (add? true) or removes {:channels [...] :patterns [...] :shard-channels [...]} on s."
  [^Subscription s add? {:keys [channels patterns shard-channels]}]
  (checked
   (doseq [[^ChannelKind kind names] [[ChannelKind/CHANNEL channels] [ChannelKind/PATTERN patterns]
                                      [ChannelKind/SHARD shard-channels]]
           :when (seq names)]
     (if add?
       (.add s kind (object-array names))
       (.remove s kind (object-array names)))))
  s)

(defn add!
  "Subscribes more names: {:channels [...] :patterns [...] :shard-channels [...]} (Strings or
  byte arrays). Returns at once; each name's :subscribed event follows. Returns s."
  ^Subscription [^Subscription s names]
  (names! s true names))

(defn remove!
  "Unsubscribes names (as add!); each subscribed one gives an :unsubscribed event. Returns s."
  ^Subscription [^Subscription s names]
  (names! s false names))

(defn subscribe
  "A Subscription of the client's channels, patterns and shard channels: {:channels [...]
  :patterns [...] :shard-channels [...]}, on connections and a thread of its own (with-open
  closes it). Channels and patterns are read on the node a read would use first (a local
  replica first), a shard channel on its slot's shard; a name whose node fails or whose slot
  moves is subscribed again elsewhere (:moving, then :resubscribed). Without handler, read
  it with next-message; with one, (handler message-map) runs on the subscription's thread for
  every message and event (what it throws goes to the thread's uncaught exception handler)."
  (^Subscription [^Client c names] (subscribe c names nil))
  (^Subscription [^Client c names handler]
   (let [^Subscription s
         (checked
          (if handler
            (.subscribe c (reify Subscription$Listener
                            (onMessage [_ m] (handler (message->map m)))
                            (onEvent [_ m] (handler (message->map m)))))
            (.subscribe c)))]
     (try
       (names! s true names)
       (catch Throwable e (.close s) (throw e))))))

(defn next-message
  "The next message or event of s as a map, waiting at most timeout-ms (nil: until one
  comes); nil when none came in time or s is closed."
  ([^Subscription s] (next-message s nil))
  ([^Subscription s timeout-ms]
   (some-> (checked (.next s (when timeout-ms (java.time.Duration/ofMillis (long timeout-ms)))))
           message->map)))

(defn publish!
  "PUBLISH channel message: how many subscribers of the node it reached got it."
  [^Client c channel message]
  (checked (.publish c channel message)))

(defn spublish!
  "SPUBLISH shard channel message, on its slot's master: its subscribers in that shard that got it."
  [^Client c channel message]
  (checked (.spublish c channel message)))

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

;; ---------------------------------------------------------------- pre-sharded and Sentinel clients

(defmacro ^:private tls-and-hedging!
  "Applies the keys :tls :tls-verify :tls-ca-file :tls-ca-dir :tls-cert-file :tls-key-file
  :tls-server-name :hedge-mode :hedge-delay-ms :hedge-min-delay-ms :hedge-budget-percent
  :hedge-percentile :shared-connections of the option map opts to o, an options object of
  class cls (whose setters of these fields are named alike)."
  [cls o opts]
  (let [t (with-meta (gensym "o") {:tag cls})]
    `(let [~t ~o
           {:keys [~'tls ~'tls-verify ~'tls-ca-file ~'tls-ca-dir ~'tls-cert-file ~'tls-key-file
                   ~'tls-server-name ~'hedge-mode ~'hedge-delay-ms ~'hedge-min-delay-ms
                   ~'hedge-budget-percent ~'hedge-percentile ~'shared-connections]} ~opts]
       (when (some? ~'tls)
         (.tls ~t (boolean ~'tls) (if (some? ~'tls-verify) (boolean ~'tls-verify) true)))
       (when (or ~'tls-ca-file ~'tls-ca-dir) (.tlsCa ~t ~'tls-ca-file ~'tls-ca-dir))
       (when (or ~'tls-cert-file ~'tls-key-file) (.tlsClientCert ~t ~'tls-cert-file ~'tls-key-file))
       (when ~'tls-server-name (.tlsServerName ~t ~'tls-server-name))
       (when ~'hedge-mode (.hedgeMode ~t (hedge-mode ~'hedge-mode)))
       (when ~'hedge-delay-ms (.hedgeDelayMs ~t (int ~'hedge-delay-ms)))
       (when ~'hedge-min-delay-ms (.hedgeMinDelayMs ~t (int ~'hedge-min-delay-ms)))
       (when ~'hedge-budget-percent (.hedgeBudgetPercent ~t (int ~'hedge-budget-percent)))
       (when ~'hedge-percentile (.hedgePercentile ~t (double ~'hedge-percentile)))
       (when ~'shared-connections (.sharedConnections ~t (int ~'shared-connections)))
       ~t)))

(defn- sharded-options
  "ShardedOptions from the option map of `sharded-client` (every key optional)."
  ^ShardedOptions [{:keys [connect-timeout-ms command-timeout-ms pool-size pool-idle-ms max-retries
                           retry-backoff-ms tcp-keepalive-s tcp-user-timeout-ms username password
                           client-name db async-executor] :as opts}]
  (let [o (ShardedOptions.)]
    (when connect-timeout-ms (.connectTimeoutMs o (int connect-timeout-ms)))
    (tier-timeouts! command-timeout-ms #(.commandTimeoutMs o (int %))
                    #(.commandTimeoutMs o ^Tier %1 (int %2)))
    (when pool-size (.poolSize o (int pool-size)))
    (when pool-idle-ms (.poolIdleMs o (int pool-idle-ms)))
    (when max-retries (.maxRetries o (int max-retries)))
    (when retry-backoff-ms (.retryBackoffMs o (int retry-backoff-ms)))
    (when tcp-keepalive-s (.tcpKeepaliveS o (int tcp-keepalive-s)))
    (when tcp-user-timeout-ms (.tcpUserTimeoutMs o (int tcp-user-timeout-ms)))
    (when (or username password) (.auth o username password))
    (when client-name (.clientName o client-name))
    (when db (.db o (int db)))
    (when async-executor (.asyncExecutor o ^Executor async-executor))
    (tls-and-hedging! ShardedOptions o opts)))

(defn- servers-list
  "servers as ShardedClient takes them: \"host:port\" or a vector [master replica ...] each."
  [servers]
  (mapv #(if (sequential? %) (vec %) %) servers))

(defmacro ^:private with-ring
  "Binds sym to (ring r) when r is a map (closed afterwards: the client keeps its own
  reference), or to r itself."
  [[sym r] & body]
  `(let [r# ~r
         ~sym (if (map? r#) (ring r#) r#)]
     (try ~@body (finally (when-not (identical? r# ~sym) (.close ~(with-meta sym {:tag `Ring})))))))

(defn sharded-client
  "A client for pre-sharded standalone servers, the migration path of Jedis 3's ShardedJedis:
  (servers i) serves ring shard i — \"host:port\", or [\"master:port\" \"replica:port\" ...].
  ring is a Ring or a ring map (see `ring`; ShardedJedis's placement is
  {:algo :murmur :shards [{:name \"cache-a\" :weight 1} ...]}, the names and weights of its
  JedisShardInfos). cfg (a map or Config; nil for none) gives locality, weights and breaker
  settings. opts, all optional: :connect-timeout-ms :command-timeout-ms (ms, or
  {:local 200 ...}) :pool-size :pool-idle-ms :max-retries :retry-backoff-ms :tcp-keepalive-s
  :tcp-user-timeout-ms :username :password :client-name :db :tls :tls-verify :tls-ca-file
  :tls-ca-dir :tls-cert-file :tls-key-file :tls-server-name :hedge-mode :hedge-delay-ms
  :hedge-min-delay-ms :hedge-budget-percent :hedge-percentile :shared-connections (default 2;
  0: a pooled connection per command in flight) :async-executor (as for `client`). Nothing is
  dialed here. The asynchronous calls (command-async, fetch-async, mget-async, mset-async! ...)
  take it as they take the cluster client.
    (with-open [c (sharded-client [\"10.0.0.1:6379\" \"10.0.0.2:6379\"]
                                  {:algo :murmur :shards [\"cache-a\" \"cache-b\"]})]
      (store! c \"user:1\" \"alice\"))"
  (^ShardedClient [servers r] (sharded-client servers r nil {}))
  (^ShardedClient [servers r cfg opts]
   (checked
    (with-ring [rg r]
      (if (nil? cfg)
        (ShardedClient. (servers-list servers) rg nil (sharded-options opts))
        (with-config [c cfg]
          (ShardedClient. (servers-list servers) rg c (sharded-options opts))))))))

(defn set-servers!
  "New addresses for every shard of a sharded client (same count and shapes): no key moves."
  [^ShardedClient c servers]
  (checked (.setServers c (servers-list servers))))

(defn- sentinel-options
  "SentinelOptions from the option map of `sentinel-client` (every key optional)."
  ^SentinelOptions [{:keys [connect-timeout-ms command-timeout-ms sentinel-timeout-ms
                            reask-interval-ms pool-size pool-idle-ms max-retries retry-backoff-ms
                            tcp-keepalive-s tcp-user-timeout-ms failures-before-refresh
                            refresh-min-gap-ms username password sentinel-username
                            sentinel-password client-name db async-executor] :as opts}]
  (let [o (SentinelOptions.)]
    (when connect-timeout-ms (.connectTimeoutMs o (int connect-timeout-ms)))
    (tier-timeouts! command-timeout-ms #(.commandTimeoutMs o (int %))
                    #(.commandTimeoutMs o ^Tier %1 (int %2)))
    (when sentinel-timeout-ms (.sentinelTimeoutMs o (int sentinel-timeout-ms)))
    (when reask-interval-ms (.reaskIntervalMs o (int reask-interval-ms)))
    (when pool-size (.poolSize o (int pool-size)))
    (when pool-idle-ms (.poolIdleMs o (int pool-idle-ms)))
    (when max-retries (.maxRetries o (int max-retries)))
    (when retry-backoff-ms (.retryBackoffMs o (int retry-backoff-ms)))
    (when tcp-keepalive-s (.tcpKeepaliveS o (int tcp-keepalive-s)))
    (when tcp-user-timeout-ms (.tcpUserTimeoutMs o (int tcp-user-timeout-ms)))
    (when failures-before-refresh (.failuresBeforeRefresh o (int failures-before-refresh)))
    (when refresh-min-gap-ms (.refreshMinGapMs o (int refresh-min-gap-ms)))
    (when (or username password) (.auth o username password))
    (when (or sentinel-username sentinel-password) (.sentinelAuth o sentinel-username sentinel-password))
    (when client-name (.clientName o client-name))
    (when db (.db o (int db)))
    (when async-executor (.asyncExecutor o ^Executor async-executor))
    (tls-and-hedging! SentinelOptions o opts)))

(defn sentinel-client
  "A client for the Sentinel masters names (group i is (names i)), asked through sentinels
  (\"host:port,...\"); ring (a Ring or a ring map with (count names) shards) places the keys.
  cfg as for `client`; opts, all optional: :connect-timeout-ms :command-timeout-ms (ms, or
  {:local 200 :other-cloud 1000 ...}) :sentinel-timeout-ms :reask-interval-ms :pool-size
  :pool-idle-ms :max-retries :retry-backoff-ms :tcp-keepalive-s :tcp-user-timeout-ms
  :failures-before-refresh :refresh-min-gap-ms :username :password :sentinel-username
  :sentinel-password :client-name :db, TLS to the sentinels and the data nodes (:tls true
  :tls-verify :tls-ca-file :tls-ca-dir :tls-cert-file :tls-key-file :tls-server-name), hedged
  reads (:hedge-mode :hedge-delay-ms :hedge-min-delay-ms :hedge-budget-percent
  :hedge-percentile), :shared-connections and :async-executor, as for `client`. Its asynchronous
  calls (command-async, fetch-async, store-async!, incr-async!, hget-async, hset-async!, and the
  batches mget-async, mset-async!, del-async!, exists-async) are the cluster client's. Its batches
  (mget, mset!, del!, exists and their -async forms) send one command per group, every group at
  once; when a group fails they throw (or fail the future with) ex-info with
  :cloudroute/failed-keys and :cloudroute/results (the other keys' writes stand: a batch is not a
  transaction)."
  (^SentinelClient [sentinels names r] (sentinel-client sentinels names r nil {}))
  (^SentinelClient [^String sentinels names r cfg opts]
   (checked
    (with-ring [rg r]
      (if (nil? cfg)
        (SentinelClient/connect sentinels (vec names) rg nil (sentinel-options opts))
        (with-config [c cfg]
          (SentinelClient/connect sentinels (vec names) rg c (sentinel-options opts))))))))

(defn client-groups
  "The shard-group table of a sharded or Sentinel client (borrowed: valid while it is open)."
  ^ShardGroups [c]
  (on-client [c c [ShardedClient SentinelClient]] (.groups c)))
