package io.cloudroute.bench.e2e;

import java.util.List;

/** driver.py's fault schedule, relative to the start of the measured window. */
final class Faults {
  private Faults() {}

  private static void at(long tMeasure, double s) throws InterruptedException {
    long wait = tMeasure + (long) (s * 1e9) - System.nanoTime();
    if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
  }

  private static double now(long tMeasure) {
    return (System.nanoTime() - tMeasure) / 1e9;
  }

  /** A thread that stalls NODE2 for 5 s from +2 s, then fails shard 1 over to NODE3 at +9 s. */
  static Thread start(ClusterEnv env, long tMeasure, List<Object[]> log) {
    Thread t = new Thread(() -> {
      try {
        long pid = Long.parseLong(env.get("NODE2_PID"));
        at(tMeasure, Driver.STALL_AT);
        ClusterEnv.signal(pid, "STOP");
        log.add(new Object[] {now(tMeasure), "SIGSTOP NODE2 " + env.get("NODE2_ADDR")});
        at(tMeasure, Driver.STALL_AT + Driver.STALL_S);
        ClusterEnv.signal(pid, "CONT");
        log.add(new Object[] {now(tMeasure), "SIGCONT NODE2"});
        at(tMeasure, Driver.FAILOVER_AT);
        env.failoverTo(3);
        log.add(new Object[] {now(tMeasure), "CLUSTER FAILOVER to NODE3 " + env.get("NODE3_ADDR")});
      } catch (Exception e) {
        System.err.println("fault schedule failed: " + e);
      }
    }, "e2e-faults");
    t.setDaemon(true);
    t.start();
    return t;
  }
}
