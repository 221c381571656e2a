package io.docstore.service.http;

/**
 * Parses document IDs from URLs: 1 to 19 ASCII digits, no sign, no spaces, at most {@link
 * Long#MAX_VALUE}. IDs are only ever numbers to the service: they never build file paths.
 */
public final class DocumentIds {

  private DocumentIds() {}

  /** The ID, or throws {@link BadRequest} naming what is wrong. */
  public static long parse(CharSequence s) throws BadRequest {
    int n = s.length();
    if (n == 0) {
      throw new BadRequest("empty document ID");
    }
    if (n > 19) {
      throw new BadRequest(
          allDigits(s)
              ? "document ID out of range (max " + Long.MAX_VALUE + ")"
              : "malformed document ID");
    }
    long v = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        throw new BadRequest(
            "malformed document ID '" + printable(s) + "': expected a non-negative integer");
      }
      v = v * 10 + (c - '0');
      if (v < 0) {
        throw new BadRequest("document ID out of range (max " + Long.MAX_VALUE + ")");
      }
    }
    return v;
  }

  private static boolean allDigits(CharSequence s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static String printable(CharSequence s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && i < 40; i++) {
      char c = s.charAt(i);
      b.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return b.toString();
  }
}
