package io.cloudroute;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * SCAN over every shard of the cluster ({@link Client#scan}): each shard once, on the node a read
 * of the shard would use (a local replica where the read policy prefers one); a node that fails
 * before its shard's first reply is replaced by the shard's next candidate. A key present for the
 * whole scan is returned once. The keys are fetched a batch at a time as the iteration goes.
 *
 * <p>Closes itself once every key was returned; close it (try-with-resources) when leaving early. A
 * failure ends the scan with its {@link CloudRouteException} from {@code hasNext()}. Closing the
 * client closes its scans. One thread at a time.
 *
 * @param <T> the key type: {@code byte[]}, or {@code String} (decoded as UTF-8)
 */
public final class Scan<T> extends NativeResource implements Iterator<T> {
  private final NativeResource client;
  private final Function<byte[], T> decode;
  private Iterator<?> batch = Collections.emptyIterator();
  private boolean done;

  Scan(NativeResource client, long ptr, Function<byte[], T> decode) {
    super(ptr, KIND_SCAN, client);
    this.client = client;
    this.decode = decode;
  }

  /** A scan of client (kind 0: a Client, 1: a ShardedClient: every shard in ring order). */
  static <T> Scan<T> open(
      NativeResource client, int kind, ScanOptions o, Function<byte[], T> decode) {
    if (o == null) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, "scan options are null");
    }
    long c = client.acquire();
    try {
      return new Scan<>(client, create0(kind, c, o.match, o.count, o.type, o.timeoutMs), decode);
    } finally {
      client.release();
    }
  }

  @Override
  public boolean hasNext() {
    if (!done && (isClosed() || client.isClosed())) {
      throw new IllegalStateException("Scan is closed");
    }
    while (!batch.hasNext() && !done) {
      List<?> keys;
      long s = acquireWithParent();
      try {
        keys = (List<?>) next0(s);
      } catch (RuntimeException e) {
        done = true;
        releaseWithParent();
        close();
        throw e;
      }
      releaseWithParent();
      if (keys == null) {
        done = true;
        close();
      } else {
        batch = keys.iterator();
      }
    }
    return batch.hasNext();
  }

  @Override
  public T next() {
    if (!hasNext()) throw new NoSuchElementException("the scan is over");
    return decode.apply((byte[]) batch.next());
  }

  /** "host:port" of the node the last batch came from; null before the first or once closed. */
  public String address() {
    if (isClosed()) return null;
    long s = acquireWithParent();
    try {
      return address0(s);
    } finally {
      releaseWithParent();
    }
  }

  private static native long create0(
      int kind, long client, Object match, int count, String type, int timeoutMs);

  private static native Object next0(long scan);

  private static native String address0(long scan);
}
