package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** tests/vectors/rings.json and routing.json, shared with the C and Python tests. */
class GoldenVectorsTest {
  static Ring ring(JsonNode spec) {
    Ring.Builder b =
        Ring.builder()
            .algo(RingAlgo.fromLabel(spec.get("algo").asText()))
            .hash(HashAlgo.fromLabel(spec.get("hash").asText()))
            .keyTags(spec.get("key_tags").asBoolean());
    if (spec.has("naming")) b.naming(RingNaming.fromLabel(spec.get("naming").asText()));
    for (JsonNode s : spec.get("shards")) {
      b.shard(s.get("name").isNull() ? null : s.get("name").asText(), s.get("weight").asInt());
    }
    return b.build();
  }

  @Test
  void rings() {
    int checked = 0;
    for (JsonNode spec : Vectors.load("rings.json").get("rings")) {
      try (Ring ring = ring(spec)) {
        assertEquals(spec.get("shards").size(), ring.shardCount());
        List<Object> keys = new ArrayList<>();
        List<Integer> shards = new ArrayList<>();
        for (JsonNode k : spec.get("keys")) {
          byte[] key = Vectors.hex(k.get("key_hex").asText());
          assertEquals(k.get("shard").asInt(), ring.locate(key), spec.get("name").asText());
          keys.add(key);
          shards.add(k.get("shard").asInt());
          checked++;
        }
        int[] batch = ring.locateBatch(keys.toArray());
        for (int i = 0; i < batch.length; i++) assertEquals((int) shards.get(i), batch[i]);
      }
    }
    assertTrue(checked > 1000, "ring vectors checked: " + checked);
  }

  @Test
  void routing() {
    int checked = 0;
    for (JsonNode c : Vectors.load("routing.json").get("cases")) {
      JsonNode cfg = c.get("config");
      try (Config config = new Config();
          Topology t =
              Topology.parse(
                  Vectors.repoFile(c.get("reply_file").asText()),
                  c.get("reply_kind").asText().equals("cluster-slots")
                      ? Topology.Format.CLUSTER_SLOTS
                      : Topology.Format.CLUSTER_SHARDS)) {
        if (cfg.has("client_location")) config.clientLocation(cfg.get("client_location").asText());
        for (JsonNode cidr : cfg.path("local_cidrs")) config.localCidr(cidr.asText());
        for (JsonNode rule : cfg.path("location_rules")) {
          config.locationRule(rule.get(0).asText(), rule.get(1).asText());
        }
        config.policy(CloudRoute.policy(cfg.get("policy").asText()));
        try (Router r = new Router(config, t)) {
          for (JsonNode k : c.get("keys")) {
            String key = k.get("key").asText();
            String what = c.get("name").asText() + " / " + key;
            assertEquals(k.get("slot").asInt(), CloudRoute.keyslot(key), what);
            assertEquals(k.get("write").asText(), r.routeWrite(key).address(), what);
            List<String> read = new ArrayList<>();
            for (Candidate cand : r.candidates(key)) read.add(cand.address());
            List<String> want = new ArrayList<>();
            k.get("read").forEach(n -> want.add(n.asText()));
            assertEquals(want, read, what);
            checked++;
          }
        }
      }
    }
    assertTrue(checked >= 20, "routing vectors checked: " + checked);
  }
}
