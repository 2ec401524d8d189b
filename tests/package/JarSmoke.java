// Smoke test of the cloudroute jar alone on the class path (tests/package/jar_test.sh:
// java -cp cloudroute-V.jar JarSmoke.java REPLY_FILE): the native library comes out of
// the jar; key slots, a saved CLUSTER SLOTS reply parsed, reads routed to the client's
// cloud, writes to masters.
import io.cloudroute.CloudRoute;
import io.cloudroute.Config;
import io.cloudroute.Policy;
import io.cloudroute.Role;
import io.cloudroute.Route;
import io.cloudroute.Router;
import io.cloudroute.Tier;
import io.cloudroute.Topology;
import java.nio.file.Files;
import java.nio.file.Path;

public final class JarSmoke {
  static void check(boolean ok, String what) {
    if (!ok) throw new AssertionError(what);
  }

  public static void main(String[] args) throws Exception {
    check(CloudRoute.keyslot("user:1000") == 1649, "keyslot");
    byte[] reply = Files.readAllBytes(Path.of(args[0]));
    try (Config config = new Config().localCidr("127.0.1.0/24").policy(Policy.LOCAL_REPLICAS_FIRST);
        Topology topology = Topology.parse(reply, Topology.Format.CLUSTER_SLOTS);
        Router router = new Router(config, topology)) {
      check(topology.shardCount() == 3, "shards: " + topology.shardCount());
      for (String key : new String[] {"user:1000", "foo", "bar", "baz"}) {
        Route read = router.routeRead(key);
        check(read.host().startsWith("127.0.1.") && read.tier() == Tier.LOCAL, key + " read " + read);
        check(router.routeWrite(key).role() == Role.MASTER, key + " write");
      }
    }
    System.out.println("smoke: cloudroute " + CloudRoute.version() + " (java): ok");
  }
}
