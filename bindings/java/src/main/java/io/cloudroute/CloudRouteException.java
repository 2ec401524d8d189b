package io.cloudroute;

/**
 * A libcloudroute call failed. {@link #status()} is the C status code ({@code CR_E*}, negative);
 * the message is the library's ({@code cr_last_error()}). Subclasses group the codes by what a
 * caller does about them; {@link #of} is the one table mapping codes to classes.
 */
public class CloudRouteException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public static final int EINVAL = -1;
  public static final int ENOMEM = -2;
  public static final int EBUFS = -3;
  public static final int EPARSE = -4;
  public static final int ELIMIT = -5;
  public static final int EINCOMPLETE = -6;
  public static final int ENOTOPOLOGY = -7;
  public static final int ESLOT_UNCOVERED = -8;
  public static final int EUNAVAILABLE = -9;
  public static final int ENOTFOUND = -10;
  public static final int EINTERNAL = -11;
  public static final int ECONN = -12;
  public static final int ETIMEOUT = -13;
  public static final int EREDIS = -14;
  public static final int EVERSION = -15;

  private final int status;

  public CloudRouteException(int status, String message) {
    super(message == null || message.isEmpty() ? statusName(status) : message);
    this.status = status;
  }

  /** The C status code (CR_EINVAL = -1 ...). */
  public int status() {
    return status;
  }

  /** The exception for a status: the one mapping of C codes to exception classes. */
  public static CloudRouteException of(int status, String message) {
    switch (status) {
      case EINVAL:
      case EBUFS:
      case ENOTFOUND:
        return new InvalidArgumentException(status, message);
      case EPARSE:
      case ELIMIT:
      case EINCOMPLETE:
        return new ParseException(status, message);
      case ENOTOPOLOGY:
      case ESLOT_UNCOVERED:
      case EUNAVAILABLE:
        return new UnavailableException(status, message);
      case ECONN:
      case ETIMEOUT:
        return new ConnectionException(status, message);
      case EREDIS:
        return new ServerErrorException(status, message);
      case EVERSION:
        return new VersionException(status, message);
      default: // ENOMEM, EINTERNAL, and codes a newer library may add
        return new CloudRouteException(status, message);
    }
  }

  /** The C name of a status ("CR_EPARSE"), "CR_?" for one that is none. */
  public static String statusName(int status) {
    String[] names = {
      "CR_OK",
      "CR_EINVAL",
      "CR_ENOMEM",
      "CR_EBUFS",
      "CR_EPARSE",
      "CR_ELIMIT",
      "CR_EINCOMPLETE",
      "CR_ENOTOPOLOGY",
      "CR_ESLOT_UNCOVERED",
      "CR_EUNAVAILABLE",
      "CR_ENOTFOUND",
      "CR_EINTERNAL",
      "CR_ECONN",
      "CR_ETIMEOUT",
      "CR_EREDIS",
      "CR_EVERSION"
    };
    return status <= 0 && -status < names.length ? names[-status] : "CR_?";
  }

  /** A bad argument: CR_EINVAL, an unknown node or shard (CR_ENOTFOUND), CR_EBUFS. */
  public static class InvalidArgumentException extends CloudRouteException {
    private static final long serialVersionUID = 1L;

    public InvalidArgumentException(int status, String message) {
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
