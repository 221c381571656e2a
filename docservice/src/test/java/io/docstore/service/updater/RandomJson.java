package io.docstore.service.updater;

import java.util.SplittableRandom;

/**
 * Random JSON for tests that compare a fast path against Jackson: objects, values, numbers and
 * strings with escapes, non-ASCII and awkward forms, and random mutations of any input.
 */
public final class RandomJson {

  /** Member names: some the write path knows, escapes, non-ASCII, empty, a trailing space. */
  public static final String[] KEYS = {
    "id", "op", "doc", "discovered_at", "x", "a\\u0062", "\u00e9t\u00e9", "", "id "
  };

  /** String contents (as JSON source): escapes, non-ASCII, lone surrogates, words. */
  public static final String[] STRINGS = {
    "",
    "abc",
    "d\\\"q",
    "\\u00e9",
    "\\ud800",
    "\u00e9\u4e2d\ud83d\ude00",
    "tab\\t",
    "put",
    "delete",
    "\\/",
    // longer than the scanner's eight-byte steps, with escapes and non-ASCII at several offsets
    "0123456789abcdef\\n0123456789",
    "plain text of thirty-one bytes\\\"",
    "seventeen bytes!!\u00e9 and more",
    "x\\u0041yz 12345678"
  };

  private final SplittableRandom rnd;
  private final String[] keys;

  /** With {@code extraKeys} among the member names besides the usual ones. */
  public RandomJson(SplittableRandom rnd, String... extraKeys) {
    this.rnd = rnd;
    this.keys = new String[KEYS.length + extraKeys.length];
    System.arraycopy(KEYS, 0, keys, 0, KEYS.length);
    System.arraycopy(extraKeys, 0, keys, KEYS.length, extraKeys.length);
  }

  /** A JSON number: small, large, fractional, with exponents, beyond a long. */
  public String number() {
    return switch (rnd.nextInt(8)) {
      case 0 -> "0";
      case 1 -> "-" + rnd.nextInt(1000);
      case 2 -> rnd.nextInt(1000) + "." + rnd.nextInt(100);
      case 3 -> rnd.nextInt(10) + "e" + (rnd.nextBoolean() ? "-" : "+") + rnd.nextInt(5);
      case 4 -> "12345678901234567890123";
      case 5 -> Long.toString(rnd.nextLong(Long.MAX_VALUE));
      default -> Long.toString(rnd.nextLong(1L << 40));
    };
  }

  /** A JSON value nested at most a few levels below {@code depth}. */
  public String value(int depth) {
    int r = rnd.nextInt(depth > 3 ? 5 : 8);
    return switch (r) {
      case 0 -> number();
      case 1 -> "\"" + STRINGS[rnd.nextInt(STRINGS.length)] + "\"";
      case 2 -> "true";
      case 3 -> "null";
      case 4 -> "false";
      case 5 -> object(depth + 1);
      default -> {
        StringBuilder sb = new StringBuilder("[");
        for (int i = rnd.nextInt(4); i > 0; i--) {
          sb.append(value(depth + 1)).append(i > 1 ? "," : "");
        }
        yield sb.append("]").toString();
      }
    };
  }

  /** A JSON object of up to four members. */
  public String object(int depth) {
    StringBuilder sb = new StringBuilder("{");
    for (int i = rnd.nextInt(5); i > 0; i--) {
      sb.append(rnd.nextInt(4) == 0 ? " " : "")
          .append('"')
          .append(keys[rnd.nextInt(keys.length)])
          .append("\":")
          .append(value(depth))
          .append(i > 1 ? "," : "");
    }
    return sb.append("}").toString();
  }

  /** {@code in} with one to three bytes replaced or removed. */
  public byte[] mutate(byte[] in) {
    byte[] b = in.clone();
    int n = 1 + rnd.nextInt(3);
    for (int i = 0; i < n && b.length > 0; i++) {
      int at = rnd.nextInt(b.length);
      int r = rnd.nextInt(3);
      if (r == 0) {
        String alphabet = "{}[]\",:\\ -.0e9ta\t";
        b[at] = (byte) alphabet.charAt(rnd.nextInt(alphabet.length()));
      } else if (r == 1) {
        b[at] = (byte) rnd.nextInt(256);
      } else {
        byte[] c = new byte[b.length - 1];
        System.arraycopy(b, 0, c, 0, at);
        System.arraycopy(b, at + 1, c, at, b.length - at - 1);
        b = c;
      }
    }
    return b;
  }
}
