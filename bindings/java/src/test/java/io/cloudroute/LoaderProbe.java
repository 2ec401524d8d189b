package io.cloudroute;

/** Run in a child JVM by NativeLibraryTest: loads the library and prints a slot. */
public final class LoaderProbe {
  private LoaderProbe() {}

  public static void main(String[] args) {
    System.out.println("slot " + CloudRoute.keyslot("foo"));
  }
}
