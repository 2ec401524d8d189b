// The peer of bench/batch_bench.cc --servers: the same batch of keys through
// a Jedis 3.x ShardedJedis pipeline (ShardedJedisPipeline: one pipeline per
// shard, the commands of each key sent on its shard's connection, then one
// sync), on the same standalone servers, shard names and weights, so the keys
// land on the same servers (ShardedJedis's defaults: MurmurHash, no key tags).
// bench/sharded_batch_bench.sh runs it with the JDK's source launcher.
//
//   java -cp JEDIS_CLASSPATH bench/jedis/ShardedJedisBatchBench.java
//       --servers HOST:PORT,... --shards NAME=WEIGHT,... [--iterations N] [--keys N]
//
// Prints BATCH_BENCH op=mset|mget|exists|del mode=jedis_pipeline lines, as
// bench/batch_bench.cc prints its own.
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.JedisShardInfo;
import redis.clients.jedis.ShardedJedis;
import redis.clients.jedis.ShardedJedisPipeline;

public final class ShardedJedisBatchBench {
  private ShardedJedisBatchBench() {}

  private static void run(ShardedJedis sj, String op, List<String> keys, List<String> values) {
    ShardedJedisPipeline p = sj.pipelined();
    for (int i = 0; i < keys.size(); i++) {
      switch (op) {
        case "mset" -> p.set(keys.get(i), values.get(i));
        case "mget" -> p.get(keys.get(i));
        case "exists" -> p.exists(keys.get(i));
        default -> p.del(keys.get(i));
      }
    }
    List<Object> replies = p.syncAndReturnAll();
    if (replies.size() != keys.size()) {
      throw new IllegalStateException(op + ": " + replies.size() + " replies for " + keys.size());
    }
  }

  private static long percentile(List<Long> v, double p) {
    List<Long> s = new ArrayList<>(v);
    Collections.sort(s);
    return s.get(Math.min(s.size() - 1, (int) (p / 100.0 * s.size())));
  }

  public static void main(String[] args) {
    Map<String, String> opt = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      opt.put(args[i], args[i + 1]);
    }
    if (!opt.containsKey("--servers") || !opt.containsKey("--shards")) {
      System.err.println(
          "usage: ShardedJedisBatchBench --servers HOST:PORT,... --shards NAME=WEIGHT,..."
              + " [--iterations N] [--keys N]");
      System.exit(2);
    }
    String[] servers = opt.get("--servers").split(",");
    String[] shards = opt.get("--shards").split(",");
    if (servers.length != shards.length) {
      throw new IllegalArgumentException("one server per shard");
    }
    int iterations = Integer.parseInt(opt.getOrDefault("--iterations", "300"));
    int n = Integer.parseInt(opt.getOrDefault("--keys", "100"));
    List<JedisShardInfo> infos = new ArrayList<>();
    for (int i = 0; i < servers.length; i++) {
      String[] hp = servers[i].split(":");
      String[] nw = shards[i].split("=");
      int weight = nw.length > 1 ? Integer.parseInt(nw[1]) : 1;
      infos.add(new JedisShardInfo(hp[0], nw[0], Integer.parseInt(hp[1]), 2000, weight));
    }
    List<String> keys = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add("user:" + i);
      values.add("value-of-user:" + i + "-" + "x".repeat(64));
    }
    String[] ops = {"mset", "mget", "exists", "del"};
    Map<String, List<Long>> us = new HashMap<>();
    try (ShardedJedis sj = new ShardedJedis(infos)) {
      for (int w = 0; w < 50; w++) { // warm-up: connections, and the JIT on every path
        for (String op : ops) {
          run(sj, "mset", keys, values);
          run(sj, op, keys, values);
        }
      }
      for (int it = 0; it < iterations; it++) {
        for (String op : ops) {
          if (!op.equals("mset")) {
            run(sj, "mset", keys, values); // untimed: every key present
          }
          long t0 = System.nanoTime();
          run(sj, op, keys, values);
          us.computeIfAbsent(op, o -> new ArrayList<>()).add((System.nanoTime() - t0) / 1000);
        }
      }
    }
    for (String op : ops) {
      List<Long> v = us.get(op);
      long sum = 0;
      for (long x : v) {
        sum += x;
      }
      System.out.printf(
          "BATCH_BENCH op=%s mode=jedis_pipeline keys=%d n=%d p50_us=%d p99_us=%d mean_us=%d%n",
          op, n, v.size(), percentile(v, 50), percentile(v, 99), sum / v.size());
    }
  }
}
