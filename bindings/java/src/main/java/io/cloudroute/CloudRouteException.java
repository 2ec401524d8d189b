package io.cloudroute;

import java.util.Collections;
import java.util.List;

/**
 * A libcloudroute call failed. {@link #status()} is the C status code ({@code CR_E*}, negative; the
 * constants are {@link StatusCodes}'); the message is the library's ({@code cr_last_error()}).
 * Subclasses are the exception families of docs/errors.md, the same as Python's: each status's
 * family is named in cloudroute.h, and {@link #of} raises the family's class.
 */
public class CloudRouteException extends RuntimeException implements StatusCodes {
  private static final long serialVersionUID = 1L;

  private final int status;

  // Set on the exception of a batch call whose keys partly failed (not serialized).
  private transient List<Object> failedKeys;
  private transient List<Object> results;

  public CloudRouteException(int status, String message) {
    super(message == null || message.isEmpty() ? statusName(status) : message);
    this.status = status;
  }

  /**
   * The keys of a batch call (the Sentinel client's mget, mset, del, exists) that failed, in call
   * order; empty for any other call. The batch's other keys succeeded: a batch is not a
   * transaction.
   */
  public List<Object> failedKeys() {
    return failedKeys == null ? Collections.emptyList() : failedKeys;
  }

  /**
   * A batch call's result per key, in call order: the value (mget) or null (the others) for a key
   * that succeeded, the CloudRouteException of its group's failure in a failed key's place; empty
   * for any other call.
   */
  public List<Object> results() {
    return results == null ? Collections.emptyList() : results;
  }

  /** Sets what a failed batch reports (the Sentinel client's batches). */
  CloudRouteException withBatch(List<Object> failedKeys, List<Object> results) {
    this.failedKeys = Collections.unmodifiableList(failedKeys);
    this.results = Collections.unmodifiableList(results);
    return this;
  }

  /** The C status code (CR_EINVAL = -1 ...). */
  public int status() {
    return status;
  }

  /** The exception family of this exception's status ("parse", ...; docs/errors.md). */
  public String family() {
    return family(status);
  }

  /**
   * The exception family of a status ("invalid_argument", "parse", "unavailable", "not_found",
   * "connection", "server", "version", "internal"; "ok" for CR_OK): cloudroute.h names each. A code
   * newer than this binding is "internal".
   */
  public static String family(int status) {
    return status <= 0 && status >= CApi.LOWEST_STATUS ? CApi.STATUS_FAMILIES[-status] : "internal";
  }

  /** The exception for a status: its family's class (the one mapping of codes to classes). */
  public static CloudRouteException of(int status, String message) {
    switch (family(status)) {
      case "invalid_argument":
        return new InvalidArgumentException(status, message);
      case "parse":
        return new ParseException(status, message);
      case "unavailable":
        return new UnavailableException(status, message);
      case "not_found":
        return new NotFoundException(status, message);
      case "connection":
        return new ConnectionException(status, message);
      case "server":
        return new ServerErrorException(status, message);
      case "version":
        return new VersionException(status, message);
      default: // "internal": ENOMEM, EBUFS, EINTERNAL, and codes a newer library may add
        return new CloudRouteException(status, message);
    }
  }

  /** The C name of a status ("CR_EPARSE"), "CR_?" for one that is none. */
  public static String statusName(int status) {
    return status <= 0 && status >= CApi.LOWEST_STATUS ? CApi.STATUS_NAMES[-status] : "CR_?";
  }

  /** A bad argument (CR_EINVAL). */
  public static class InvalidArgumentException extends CloudRouteException {
    private static final long serialVersionUID = 1L;

    public InvalidArgumentException(int status, String message) {
      super(status, message);
    }
  }

  /** The named node, shard or group is not known (CR_ENOTFOUND). */
  public static class NotFoundException extends CloudRouteException {
    private static final long serialVersionUID = 1L;

    public NotFoundException(int status, String message) {
      super(status, message);
    }
  }

  /** Malformed or oversized input: CR_EPARSE, CR_ELIMIT, CR_EINCOMPLETE. */
  public static class ParseException extends CloudRouteException {
    private static final long serialVersionUID = 1L;

    public ParseException(int status, String message) {
      super(status, message);
    }
  }

  /** Nowhere to route: CR_ENOTOPOLOGY, CR_ESLOT_UNCOVERED, CR_EUNAVAILABLE. */
  public static class UnavailableException extends CloudRouteException {
    private static final long serialVersionUID = 1L;

    public UnavailableException(int status, String message) {
      super(status, message);
    }
  }

  /** A node could not be reached or did not answer in time: CR_ECONN, CR_ETIMEOUT. */
  public static class ConnectionException extends CloudRouteException {
    private static final long serialVersionUID = 1L;

    public ConnectionException(int status, String message) {
      super(status, message);
    }
  }

  /** The server answered with an error (CR_EREDIS); the message is its text. */
  public static class ServerErrorException extends CloudRouteException {
    private static final long serialVersionUID = 1L;

    public ServerErrorException(int status, String message) {
      super(status, message);
    }
  }

  /** A struct from a newer header sets fields this library lacks (CR_EVERSION). */
  public static class VersionException extends CloudRouteException {
    private static final long serialVersionUID = 1L;

    public VersionException(int status, String message) {
      super(status, message);
    }
  }
}
