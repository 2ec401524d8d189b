package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.CloudRouteException.ConnectionException;
import io.cloudroute.CloudRouteException.InvalidArgumentException;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.function.Executable;

/**
 * What the asynchronous clients' tests (AsyncClientTest, SentinelAsyncTest, ShardedAsyncTest) check
 * alike.
 */
final class AsyncTesting {
  private AsyncTesting() {}

  static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  /** The exception a future failed with (ExecutionException's cause). */
  static Throwable failure(CompletableFuture<?> f) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(f));
    return e.getCause();
  }

  /**
   * async is refused at once with the exception blocking throws (an InvalidArgumentException, the
   * same message but for the C function it names), nothing sent (no batch outcome).
   */
  static void refusedAsTheBlockingCall(Executable blocking, Executable async) {
    CloudRouteException b = assertThrows(InvalidArgumentException.class, blocking);
    CloudRouteException a = assertThrows(InvalidArgumentException.class, async);
    assertSameMessage(b, a);
    assertTrue(a.failedKeys().isEmpty() && a.results().isEmpty(), "nothing was sent");
  }

  /**
   * The blocking and the asynchronous calls' messages say the same but for the C function they name
   * first ("cr_sentinel_client_mget: ..." and "cr_sentinel_client_submit_mget: ...").
   */
  static void assertSameMessage(Throwable blocking, Throwable async) {
    assertEquals(pastFunction(blocking.getMessage()), pastFunction(async.getMessage()));
  }

  private static String pastFunction(String message) {
    return message.startsWith("cr_") ? message.substring(message.indexOf(": ") + 2) : message;
  }

  /**
   * A batch's future failed by close: a ConnectionException saying "cancelled:" (after the C
   * function's name and the failed groups), every key of the batch failed, each with a
   * ConnectionException.
   */
  static void assertBatchCancelled(Throwable e, List<?> keys) {
    assertInstanceOf(ConnectionException.class, e);
    assertTrue(e.getMessage().contains("cancelled:"), e.getMessage());
    CloudRouteException c = (CloudRouteException) e;
    assertEquals(keys, c.failedKeys());
    for (Object r : c.results()) assertInstanceOf(ConnectionException.class, r);
  }

  /**
   * Each of stages (each giving the thread it ran on) ran on a thread executor accepts, or on this
   * thread — a stage added to a future already complete runs on its caller (a preempted caller may
   * add it late) — and some ran on the executor.
   */
  static void assertStagesRanOn(List<CompletableFuture<Thread>> stages, Predicate<Thread> executor)
      throws Exception {
    int onExecutor = 0;
    for (CompletableFuture<Thread> f : stages) {
      Thread t = await(f);
      if (t == Thread.currentThread()) continue;
      assertTrue(executor.test(t), t.getName());
      onExecutor++;
    }
    assertTrue(onExecutor > 0, "no stage ran on the executor");
  }

  static void assertCancelled(Throwable e) {
    assertInstanceOf(ConnectionException.class, e);
    assertTrue(e.getMessage().startsWith("cancelled:"), e.getMessage());
  }

  /**
   * Closes c with every future of all in flight: each completes once, soon (a BLPOP held is not
   * waited for), and every one of held fails with a "cancelled:" ConnectionException.
   */
  static void closeWithAllInFlight(
      AutoCloseable c, List<CompletableFuture<?>> all, List<CompletableFuture<?>> held)
      throws Exception {
    AtomicInteger completions = new AtomicInteger();
    for (CompletableFuture<?> f : all) f.whenComplete((v, e) -> completions.incrementAndGet());
    long start = System.nanoTime();
    c.close();
    Poll.until(() -> all.stream().allMatch(CompletableFuture::isDone), "every future completed");
    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "close waited the BLPOPs");
    // A future is done before the callbacks registered on it have run (the
    // completing thread runs them next): wait for the last one, then none more.
    Poll.until(() -> completions.get() >= all.size(), "every future's callback ran");
    assertEquals(all.size(), completions.get());
    for (CompletableFuture<?> f : held) assertCancelled(failure(f));
  }

  /** Until the closed client is collected: no call's global reference outlived its completion. */
  static void assertCollected(WeakReference<?> gone) {
    Poll.until(
        () -> {
          System.gc();
          return gone.get() == null;
        },
        "a closed client whose calls all completed is collected (no global reference left)");
  }

  /**
   * An executor for a client's asynchronous calls that records which threads hand completions over
   * (the library's) and which run them (a pool of two of the test's own).
   */
  static final class RecordingExecutor implements Executor, AutoCloseable {
    final Set<Thread> pool = ConcurrentHashMap.newKeySet();
    private final Set<Thread> handedOverBy = ConcurrentHashMap.newKeySet();
    private final Set<Thread> completedOn = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads;

    RecordingExecutor(String name) {
      threads =
          Executors.newFixedThreadPool(
              2,
              r -> {
                Thread t = new Thread(r, name);
                pool.add(t);
                return t;
              });
    }

    @Override
    public void execute(Runnable r) {
      handedOverBy.add(Thread.currentThread());
      threads.execute(
          () -> {
            completedOn.add(Thread.currentThread());
            r.run();
          });
    }

    @Override
    public void close() {
      threads.shutdown();
    }

    /**
     * Only the library's threads (the engine's, a worker's: attached by the binding) handed
     * completions over, and only the pool ran them.
     */
    void assertOnlyHandedOver() {
      assertFalse(handedOverBy.isEmpty());
      for (Thread t : handedOverBy) {
        assertEquals("cloudroute-native", t.getName());
        assertFalse(pool.contains(t));
        assertNotEquals(Thread.currentThread(), t);
      }
      assertTrue(pool.containsAll(completedOn), completedOn.toString());
    }
  }
}
