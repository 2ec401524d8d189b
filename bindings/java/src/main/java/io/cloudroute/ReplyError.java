package io.cloudroute;

/** An error element inside an array reply (e.g. one command of an EXEC). */
public final class ReplyError {
  private final String message;

  public ReplyError(String message) {
    this.message = message;
  }

  public String message() {
    return message;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ReplyError && ((ReplyError) o).message.equals(message);
  }

  @Override
  public int hashCode() {
    return message.hashCode();
  }

  @Override
  public String toString() {
    return "ReplyError(" + message + ")";
  }
}
