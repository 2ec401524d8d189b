package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * The binding survives careless callers: null arrays and strings, negative counts, indexes and
 * options, CR/LF in host and location text are refused with a CloudRouteException naming the
 * argument (a null array once crashed the JVM: JNI read it before any check); a log handler may
 * close the client or ask for a refresh from inside one (once: an abort, a hang, a close() spinning
 * forever). The messages of options are the Python binding's
 * (tests/python/test_careless_callers.py). The live client talks to a scripted node (FakeNode): no
 * redis-server.
 */
class CarelessCallersTest {
  private static final Logger JUL = Logger.getLogger("io.cloudroute");
  private final List<Handler> handlers = new CopyOnWriteArrayList<>();
  private Level before;

  private static void refused(String message, Executable call) {
    CloudRouteException e = assertThrows(CloudRouteException.InvalidArgumentException.class, call);
    assertTrue(
        e.getMessage().contains(message), () -> "'" + e.getMessage() + "' lacks '" + message + "'");
  }

  @Test
  void nullArraysAndNegativeCountsAreRefusedBeforeNativeCodeReadsThem() {
    refused("data is null", () -> CloudRoute.keyslots(null, new int[1], 1, new int[1]));
    refused("ends is null", () -> CloudRoute.keyslots(new byte[1], null, 1, new int[1]));
    refused("out is null", () -> CloudRoute.keyslots(new byte[1], new int[] {1}, 1, null));
    refused(
        "n must be in 0..4294967295, not -1",
        () -> CloudRoute.keyslots(new byte[1], new int[1], -1, new int[1]));
    refused("key is null", () -> CloudRoute.keyslot((byte[]) null, 0, 0));
    refused("key is null", () -> CloudRoute.keyslot((String) null));
    refused("data is null", () -> CloudRoute.crc16(null));
    refused("key offset/length outside the array", () -> CloudRoute.keyslot(new byte[2], 1, 5));
    refused("buckets must be in 0..4294967295, not -7", () -> CloudRoute.jumpHash(1, -7));
    refused("text is null", () -> Topology.parseStatic((String) null));
    refused("text is null", () -> Topology.parseStatic((byte[]) null));
    try (Topology t = Topology.parseStatic("shard slots=0-16383 master=10.0.0.1:6379\n")) {
      refused("index must be in 0..4294967295, not -1", () -> t.node(-1));
      refused("shard must be in 0..4294967295, not -2", () -> t.shardId(-2));
      refused("shard must be in 0..4294967295, not -2", () -> t.shardRanges(-2));
      try (Router r = new Router(null, t)) {
        refused("node handle must be in 0..4294967295, not -1", () -> r.reportFailure(-1));
        refused("key is null", () -> r.routeRead((byte[]) null));
      }
    }
  }

  @Test
  void hostAndLocationTextWithControlCharactersIsRefused() {
    try (Router r = new Router(null)) {
      refused(
          "host '10.9.9.9\\x0d\\x0a' is neither an IP address nor a hostname",
          () -> r.reportMoved(1, "10.9.9.9\r\n", 7000));
      refused("is neither an IP address nor a hostname", () -> r.reportAsk(1, "a\nb", 7000));
      refused(
          "zone 'z\\x0a1' contains a control character",
          () -> r.setNodeZone("10.0.0.1", 7000, "z\n1"));
    }
    try (Config c = new Config()) {
      refused(
          "location 'aws\\x0d\\x0a' contains a control character",
          () -> c.clientLocation("aws\r\n"));
      refused("contains a control character", () -> c.locationRule("10.0.0.0/8", "gcp/\nx"));
      refused("zone 'az\\x0d' contains a control character", () -> c.zone("az\r", "aws/r/z"));
    }
    refused(
        "seed host '127.0.0.1\\x0d\\x0a' is neither",
        () -> Client.connect("127.0.0.1\r\n:7000", null).close());
  }

  @Test
  void negativeOptionsAreRefusedAsPythonRefusesThem() {
    // Checked before any connection is tried: no server needed.
    String seeds = "127.0.0.1:1";
    refused(
        "pool_size must be in 0..4294967295, not -1",
        () -> Client.connect(seeds, null, new ClientOptions().poolSize(-1)).close());
    refused(
        "connect_timeout_ms must be in 0..4294967295, not -5",
        () -> Client.connect(seeds, null, new ClientOptions().connectTimeoutMs(-5)).close());
    refused(
        "max_reply_elements must be in 0..4294967295, not -1",
        () -> Client.connect(seeds, null, new ClientOptions().maxReplyElements(-1)).close());
    refused(
        "max_bulk_len must be in 0 .. 2**64-1",
        () -> Client.connect(seeds, null, new ClientOptions().maxBulkLen(-1)).close());
    // Zero is representable: the C library judges it, for every binding alike.
    refused(
        "pool_size must be at least 1",
        () -> Client.connect(seeds, null, new ClientOptions().poolSize(0)).close());
    refused(
        "connect_timeout_ms must be > 0",
        () -> Client.connect(seeds, null, new ClientOptions().connectTimeoutMs(0)).close());
    refused(
        "reply caps must be > 0",
        () -> Client.connect(seeds, null, new ClientOptions().maxReplyElements(0)).close());
    try (Ring ring = Ring.builder().shards(1).build()) {
      refused(
          "pool_size must be in 0..4294967295, not -3",
          () ->
              SentinelClient.connect(
                      "127.0.0.1:1", List.of("g"), ring, null, new SentinelOptions().poolSize(-3))
                  .close());
    }
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang fails
  void theClientsCommandsRefuseBadArgumentsAndAClosedClient() throws IOException {
    try (FakeNode node = new FakeNode()) {
      Client c = Client.connect(node.seed(), null, new ClientOptions().refreshIntervalMs(0));
      refused("access is null", () -> c.command(null, 1, "GET", "k"));
      refused("access is null", () -> c.pipeline().command(null, 1, "GET", "k"));
      refused("needs at least its name", () -> c.pipeline().read((Object[]) null));
      refused("a key or argument is null", () -> c.pipeline().read("GET", null));
      refused("must be a String or a byte[]", () -> c.pipeline().read("GET", 5));
      refused("has no key at index 3", () -> c.pipeline().command(Access.READ, 3, "GET", "k"));
      refused("is not host:port", () -> c.pipeline().onNode(Access.READ, "nohost", "PING"));
      refused("is not host:port", () -> c.pipeline().onNode(Access.READ, "h:99999", "PING"));
      refused("node is null", () -> c.pipeline().onNode(Access.READ, null, "PING"));
      CloudRouteException unknown =
          assertThrows(
              CloudRouteException.class,
              () -> c.pipeline().onNode(Access.READ, "10.9.9.9:7000", "PING").execute());
      assertEquals(CloudRouteException.ENOTFOUND, unknown.status(), unknown.getMessage());
      refused("a key or argument is null", () -> c.hget(null, "f"));
      refused(
          "HSET needs at least one pair", () -> c.hset("k", (java.util.Map<String, String>) null));
      refused("SADD needs at least one member", () -> c.sadd("k"));
      refused("its arguments are null", () -> c.zrem("k", (String[]) null));
      refused("a score is NaN", () -> c.zadd("k", Double.NaN, "m"));
      refused("BLPOP: timeout must be", () -> c.blpop("k", -1));
      refused("negative time to live", () -> c.pipeline().set("k", "v", -1));
      refused("scan options are null", () -> c.scan((ScanOptions) null));
      refused("count must be in 0..4294967295, not -1", () -> c.scan(new ScanOptions().count(-1)));
      refused("body is null", () -> new Script((String) null));
      refused("script is null", () -> c.eval(null, List.of(), List.of()));
      try (Script s = new Script("return 1")) {
        refused("keys is null", () -> c.eval(s, null, List.of()));
        refused("args is null", () -> c.eval(s, List.of(), null));
      }
      refused("function is null", () -> c.fcall(null, List.of(), List.of()));
      refused("key is null", () -> c.transaction(null));
      refused("slot outside 0-16383", () -> c.transactionOnSlot(16384));
      refused("node is null", () -> c.onNode((String) null, "PING"));
      refused("args is null", () -> c.onMasters((Object[]) null));
      Transaction t = c.transaction("k");
      refused("key indexes is null", () -> t.command((int[]) null, "GET", "k"));
      refused(
          "key index must be in 0..4294967295, not -1",
          () -> t.command(new int[] {-1}, "GET", "k"));
      refused("", () -> t.command(new int[] {5}, "GET", "k"));
      refused("WATCH needs a key", () -> t.watch());
      // The scripted node answers: a pipeline runs, a transaction too.
      assertEquals(
          List.of(true, java.util.Collections.singletonList(null)),
          c.pipeline().set("k", "v").mget("k").execute());
      assertEquals("OK", t.command("SET", "k", "v"));
      Scan<byte[]> scan = c.scan(new ScanOptions());
      c.close(); // frees the open scan and transaction before the client
      assertThrows(IllegalStateException.class, () -> t.command("PING"));
      assertThrows(IllegalStateException.class, scan::hasNext);
      t.close();
      scan.close();
      assertThrows(IllegalStateException.class, () -> c.pipeline().get("k").execute());
      assertThrows(IllegalStateException.class, () -> c.scan("*").iterator());
      assertThrows(IllegalStateException.class, () -> c.transaction("k"));
      assertThrows(IllegalStateException.class, () -> c.onMasters("PING"));
      assertThrows(IllegalStateException.class, () -> c.hgetAll("k"));
    }
  }

  // ---- log handlers calling back into the client ----------------------------------------

  /** Runs action on each event of the io.cloudroute logger, at FINE (debug) and up. */
  private void onEvent(Consumer<LogRecord> action) {
    Handler h =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            action.accept(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    if (before == null) before = JUL.getLevel();
    JUL.setLevel(Level.FINE);
    JUL.addHandler(h);
    handlers.add(h);
  }

  @AfterEach
  void removeHandlers() {
    for (Handler h : handlers) JUL.removeHandler(h);
    if (before != null) JUL.setLevel(before);
  }

  /**
   * A cluster node on 127.0.0.1 as far as the live client asks: CLUSTER SHARDS is an error (the
   * client falls back to CLUSTER SLOTS: one shard, this node), INFO an empty section, GET nil,
   * anything else +OK. No redis-server: these tests need neither ports nor the servers' lock.
   */
  private static final class FakeNode implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    FakeNode() throws IOException {
      server = new ServerSocket(0, 64, InetAddress.getByName("127.0.0.1"));
      Thread accept =
          new Thread(
              () -> {
                try {
                  while (true) {
                    Socket s = server.accept();
                    open.add(s);
                    Thread t = new Thread(() -> serve(s), "fake-node-conn");
                    t.setDaemon(true);
                    t.start();
                  }
                } catch (IOException closed) {
                  // close() ends the loop
                }
              },
              "fake-node");
      accept.setDaemon(true);
      accept.start();
    }

    String seed() {
      return "127.0.0.1:" + server.getLocalPort();
    }

    private static String bulk(String s) {
      return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    private String answer(List<String> argv) {
      String cmd = argv.get(0).toUpperCase(Locale.ROOT);
      String sub = argv.size() > 1 ? argv.get(1).toUpperCase(Locale.ROOT) : "";
      if (cmd.equals("CLUSTER") && sub.equals("SHARDS")) return "-ERR unknown subcommand\r\n";
      if (cmd.equals("CLUSTER")) {
        return "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n"
            + bulk("127.0.0.1")
            + ":"
            + server.getLocalPort()
            + "\r\n"
            + bulk("a".repeat(40));
      }
      if (cmd.equals("INFO")) return bulk("# Server\r\n");
      if (cmd.equals("PING")) return argv.size() == 2 ? bulk(argv.get(1)) : "+PONG\r\n";
      if (cmd.equals("GET")) return "$-1\r\n";
      return "+OK\r\n";
    }

    private static String line(InputStream in) throws IOException {
      StringBuilder b = new StringBuilder();
      int c;
      while ((c = in.read()) != -1) {
        if (c == '\r') {
          in.read(); // the LF
          return b.toString();
        }
        b.append((char) c);
      }
      throw new IOException("closed");
    }

    private void serve(Socket s) {
      try (Socket sock = s) {
        InputStream in = new BufferedInputStream(sock.getInputStream());
        OutputStream out = sock.getOutputStream();
        while (true) {
          int n = Integer.parseInt(line(in).substring(1));
          List<String> argv = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            int len = Integer.parseInt(line(in).substring(1));
            argv.add(new String(in.readNBytes(len), StandardCharsets.ISO_8859_1));
            line(in);
          }
          out.write(answer(argv).getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
        }
      } catch (IOException | RuntimeException closed) {
        // the client went away
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : open) s.close();
    }
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang fails
  void closeFromAHandlerOnTheRefresherThread() throws IOException {
    AtomicReference<Client> target = new AtomicReference<>();
    AtomicReference<Thread> closedOn = new AtomicReference<>();
    Thread caller = Thread.currentThread();
    onEvent(
        r -> {
          Client c = target.get();
          if (c != null
              && Thread.currentThread() != caller
              && r.getMessage().startsWith("refresh done")
              && target.compareAndSet(c, null)) {
            c.close(); // once aborted the process: the refresher joined itself
            closedOn.set(Thread.currentThread());
          }
        });
    try (FakeNode node = new FakeNode()) {
      Client c = Client.connect(node.seed(), null, new ClientOptions().refreshIntervalMs(50));
      assertNull(c.get("k")); // a pooled connection, as a client in use has
      target.set(c);
      Poll.until(() -> closedOn.get() != null, "no periodic refresh closed the client");
      assertTrue(c.isClosed());
      assertThrows(IllegalStateException.class, () -> c.get("k"));
    }
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang fails
  void refreshFromAHandlerOfThatRefreshIsRefused() throws IOException {
    AtomicReference<Client> target = new AtomicReference<>();
    List<RuntimeException> errors = new CopyOnWriteArrayList<>();
    onEvent(
        r -> {
          Client c = target.get();
          if (c != null
              && r.getMessage().equals("refresh started")
              && target.compareAndSet(c, null)) {
            try {
              c.refresh(); // once blocked forever: the refresh waited for itself
            } catch (RuntimeException e) {
              errors.add(e);
            }
          }
        });
    try (FakeNode node = new FakeNode();
        Client c = Client.connect(node.seed(), null, new ClientOptions().refreshIntervalMs(0))) {
      target.set(c);
      c.refresh(); // the handler runs on this thread, inside this refresh
      assertEquals(1, errors.size());
      assertTrue(errors.get(0) instanceof CloudRouteException.InvalidArgumentException);
      assertTrue(errors.get(0).getMessage().contains("log handler"), errors.get(0).getMessage());
      c.refresh(); // outside a handler a refresh runs
    }
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang fails
  void closeFromAHandlerInsideACallOfTheSameThreadReturns() throws IOException {
    AtomicReference<Client> target = new AtomicReference<>();
    AtomicBoolean closed = new AtomicBoolean();
    onEvent(
        r -> {
          Client c = target.get();
          if (c != null
              && r.getMessage().startsWith("refresh done")
              && target.compareAndSet(c, null)) {
            c.close(); // once spun forever: it waited for the call it runs inside
            closed.set(true);
          }
        });
    try (FakeNode node = new FakeNode()) {
      Client c = Client.connect(node.seed(), null, new ClientOptions().refreshIntervalMs(0));
      target.set(c);
      c.refresh();
      assertTrue(closed.get());
      assertTrue(c.isClosed());
      assertThrows(IllegalStateException.class, c::refresh);
    }
  }
}
