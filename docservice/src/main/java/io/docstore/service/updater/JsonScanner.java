package io.docstore.service.updater;

/**
 * A strict single-pass JSON validator over bytes, for the write paths' hot loops: an NDJSON update
 * line ({@link #line}: its {@code id}, {@code op}, {@code doc} slice and the document's top-level
 * integral {@code discovered_at}), a whole document ({@link #document}), and a document's top-level
 * fields for field groups ({@link #topLevelFields}), without building a parser per input. A line
 * with an expiry ({@code ttl} or {@code expiresAt}) goes to Jackson.
 *
 * <p>It answers only when it is sure: whatever it accepts, Jackson ({@link UpdateParser}'s parse)
 * accepts with the same result (checked by {@code JsonScannerTest} on random and mutated input); on
 * anything else (invalid JSON, escapes in names, numbers that may not fit a long, deep nesting,
 * non-ASCII outside strings, a missing or misplaced field) it answers "unsure" and the caller asks
 * Jackson, which gives the verdict and the error message. So it is stricter than Jackson, never
 * laxer: ill-formed UTF-8 in strings, lone surrogate escapes, over 100 levels of nesting, numbers
 * of over 100 characters and strings over 1 MiB all go to Jackson.
 *
 * <p>Not thread-safe: one instance per thread.
 */
public final class JsonScanner {

  private static final int MAX_DEPTH = 100;
  private static final int MAX_NUMBER_CHARS = 100;
  private static final int MAX_STRING_BYTES = 1 << 20;
  private static final long NONE = Long.MIN_VALUE;

  /** {@link #document}'s answer when Jackson must decide. */
  public static final long UNSURE = NONE - 1;

  private final int maxBodyBytes;
  private byte[] b;
  private int p;
  private int end;

  /** Set by {@link #memberName}: where the name it read ends (its closing quote). */
  private int nameEnd;

  /** Set by {@link #number}: the value of an integer of at most 18 digits, else {@link #NONE}. */
  private long integer;

  public JsonScanner(int maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  /** The line's slice, or null when Jackson must decide (see the class comment). */
  public UpdateParser.Slice line(byte[] buf, int off, int len) {
    try {
      reset(buf, off, len);
      return line();
    } finally {
      b = null; // a thread's scanner must not keep a request's buffer alive
    }
  }

  private UpdateParser.Slice line() {
    long id = -1;
    int docOff = -1;
    int docLen = 0;
    long discovered = -1;
    int op = 0; // 0: absent, 1: put, 2: delete
    ws();
    if (!eat('{')) {
      return null;
    }
    ws();
    if (p < end && b[p] == '}') {
      return null;
    }
    while (true) {
      int keyStart = memberName();
      if (keyStart < 0) {
        return null;
      }
      int keyEnd = nameEnd;
      if (is(keyStart, keyEnd, "id")) {
        if (p >= end || b[p] == '-' || !number() || integer == NONE) {
          return null;
        }
        id = integer;
      } else if (is(keyStart, keyEnd, "op")) {
        int s = p + 1;
        if (!plainString()) {
          return null;
        }
        if (is(s, p - 1, "put")) {
          op = 1;
        } else if (is(s, p - 1, "delete")) {
          op = 2;
        } else {
          return null;
        }
      } else if (is(keyStart, keyEnd, "doc")) {
        if (p >= end || b[p] != '{') {
          return null;
        }
        int start = p;
        long d = object();
        if (d == UNSURE) {
          return null;
        }
        if (p - start > maxBodyBytes) {
          return null; // Jackson rejects every over-long doc, also one a later doc would replace
        }
        discovered = d;
        docOff = start;
        docLen = p - start;
      } else if (is(keyStart, keyEnd, "ttl") || is(keyStart, keyEnd, "expiresAt")) {
        return null; // an expiry: rare enough to leave to Jackson
      } else if (!value(1)) {
        return null;
      }
      ws();
      if (eat(',')) {
        continue;
      }
      if (eat('}')) {
        break;
      }
      return null;
    }
    ws();
    if (p != end || id < 0) {
      return null;
    }
    if (op == 2) {
      return docOff < 0 ? new UpdateParser.Slice(id, -1, 0, -1, 0) : null;
    }
    if (docOff < 0) {
      return null;
    }
    return new UpdateParser.Slice(id, docOff, docLen, discovered, 0);
  }

  /**
   * Validates the document {@code buf[off, off+len)}, one JSON object (spaces around it allowed),
   * and returns its top-level integral {@code discovered_at} (-1 if none, the last one if
   * repeated), or {@link #UNSURE} when Jackson must decide. Its size is the caller's to check.
   */
  public long document(byte[] buf, int off, int len) {
    try {
      reset(buf, off, len);
      return document();
    } finally {
      b = null;
    }
  }

  private long document() {
    ws();
    if (p >= end || b[p] != '{') {
      return UNSURE;
    }
    long d = object();
    if (d == UNSURE) {
      return UNSURE;
    }
    ws();
    return p == end ? d : UNSURE;
  }

  /** Resolves a top-level field's name to its number, or -1 for a field nobody asked for. */
  @FunctionalInterface
  public interface FieldNames {
    int number(byte[] buf, int from, int to);
  }

  /**
   * The top-level fields of the document {@code doc} that {@code names} knows: for the first
   * occurrence of each, in document order, its number, where its value starts and where it ends
   * ({@code found[3i]}, {@code found[3i+1]}, {@code found[3i+2]}; {@code found} holds at least
   * {@code 3 * wanted}). Stops once {@code wanted} distinct fields are found (the rest of the
   * document is not read); otherwise checks the document through its end. Returns how many were
   * found, or -1 when Jackson must decide (not one JSON object, or anything the scanner is unsure
   * of, such as an escape in a name). Field numbers are below 64.
   */
  public int topLevelFields(byte[] doc, FieldNames names, int wanted, int[] found) {
    try {
      reset(doc, 0, doc.length);
      return topLevelFields(names, wanted, found);
    } finally {
      b = null;
    }
  }

  private int topLevelFields(FieldNames names, int wanted, int[] found) {
    ws();
    if (!eat('{')) {
      return -1;
    }
    ws();
    int n = 0;
    long seen = 0;
    if (eat('}')) {
      ws();
      return p == end ? 0 : -1;
    }
    while (true) {
      int keyStart = memberName();
      if (keyStart < 0) {
        return -1;
      }
      int keyEnd = nameEnd;
      int from = p;
      if (!value(2)) {
        return -1;
      }
      int f = names.number(b, keyStart, keyEnd);
      if (f >= 0 && (seen & (1L << f)) == 0) {
        seen |= 1L << f;
        found[3 * n] = f;
        found[3 * n + 1] = from;
        found[3 * n + 2] = p;
        if (++n == wanted) {
          return n;
        }
      }
      ws();
      if (eat(',')) {
        continue;
      }
      if (eat('}')) {
        ws();
        return p == end ? n : -1;
      }
      return -1;
    }
  }

  /**
   * A member's name (a plain string) and its colon, spaces around them skipped: returns where the
   * name starts, its end in {@link #nameEnd}; -1 when Jackson must decide.
   */
  private int memberName() {
    ws();
    int start = p + 1;
    if (!plainString()) {
      return -1;
    }
    nameEnd = p - 1;
    ws();
    if (!eat(':')) {
      return -1;
    }
    ws();
    return start;
  }

  private void reset(byte[] buf, int off, int len) {
    b = buf;
    p = off;
    end = off + len;
  }

  /**
   * The object at {@code p}: validates it and returns its top-level integral {@code discovered_at}
   * (-1 if none), or {@link #UNSURE} when Jackson must decide.
   */
  private long object() {
    long discovered = -1;
    p++;
    ws();
    if (eat('}')) {
      return discovered;
    }
    while (true) {
      int keyStart = memberName();
      if (keyStart < 0) {
        return UNSURE;
      }
      int keyEnd = nameEnd;
      if (is(keyStart, keyEnd, "discovered_at")
          && p < end
          && (b[p] == '-' || (b[p] >= '0' && b[p] <= '9'))) {
        int start = p;
        if (!number()) {
          return UNSURE;
        }
        boolean integral = true;
        for (int i = start; i < p; i++) {
          if (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
            integral = false;
          }
        }
        if (integral) {
          if (integer == NONE) {
            return UNSURE;
          }
          discovered = integer;
        }
      } else if (!value(2)) {
        return UNSURE;
      }
      ws();
      if (eat(',')) {
        continue;
      }
      if (eat('}')) {
        return discovered;
      }
      return UNSURE;
    }
  }

  private boolean value(int depth) {
    if (p >= end || depth > MAX_DEPTH) {
      return false;
    }
    byte c = b[p];
    switch (c) {
      case '{' -> {
        p++;
        ws();
        if (eat('}')) {
          return true;
        }
        while (true) {
          ws();
          if (!string()) {
            return false;
          }
          ws();
          if (!eat(':')) {
            return false;
          }
          ws();
          if (!value(depth + 1)) {
            return false;
          }
          ws();
          if (eat(',')) {
            continue;
          }
          return eat('}');
        }
      }
      case '[' -> {
        p++;
        ws();
        if (eat(']')) {
          return true;
        }
        while (true) {
          ws();
          if (!value(depth + 1)) {
            return false;
          }
          ws();
          if (eat(',')) {
            continue;
          }
          return eat(']');
        }
      }
      case '"' -> {
        return string();
      }
      case 't' -> {
        return literal("true");
      }
      case 'f' -> {
        return literal("false");
      }
      case 'n' -> {
        return literal("null");
      }
      default -> {
        return number();
      }
    }
  }

  private boolean literal(String word) {
    if (end - p < word.length()) {
      return false;
    }
    for (int i = 0; i < word.length(); i++) {
      if (b[p + i] != word.charAt(i)) {
        return false;
      }
    }
    p += word.length();
    return p == end || !Character.isLetterOrDigit(b[p]);
  }

  /** JSON number grammar; sets {@link #integer} for an integer of at most 18 digits. */
  private boolean number() {
    int start = p;
    boolean negative = eat('-');
    int digitsStart = p;
    if (p >= end) {
      return false;
    }
    if (b[p] == '0') {
      p++;
    } else if (b[p] >= '1' && b[p] <= '9') {
      while (p < end && b[p] >= '0' && b[p] <= '9') {
        p++;
      }
    } else {
      return false;
    }
    int digitsEnd = p;
    boolean integral = true;
    if (p < end && b[p] == '.') {
      integral = false;
      p++;
      if (!digits()) {
        return false;
      }
    }
    if (p < end && (b[p] == 'e' || b[p] == 'E')) {
      integral = false;
      p++;
      if (p < end && (b[p] == '+' || b[p] == '-')) {
        p++;
      }
      if (!digits()) {
        return false;
      }
    }
    if (p - start > MAX_NUMBER_CHARS || (p < end && Character.isLetterOrDigit(b[p]))) {
      return false;
    }
    integer = NONE;
    if (integral && digitsEnd - digitsStart <= 18) {
      long v = 0;
      for (int i = digitsStart; i < digitsEnd; i++) {
        v = v * 10 + (b[i] - '0');
      }
      integer = negative ? -v : v;
    }
    return true;
  }

  private boolean digits() {
    int s = p;
    while (p < end && b[p] >= '0' && b[p] <= '9') {
      p++;
    }
    return p > s;
  }

  /** A string of printable ASCII without escapes (names and op values we compare). */
  private boolean plainString() {
    if (p >= end || b[p] != '"') {
      return false;
    }
    int i = p + 1;
    while (i < end) {
      byte c = b[i];
      if (c == '"') {
        p = i + 1;
        return true;
      }
      if (c < 0x20 || c == '\\') {
        return false;
      }
      i++;
    }
    return false;
  }

  /** Any JSON string with valid escapes and well-formed UTF-8. */
  private boolean string() {
    if (p >= end || b[p] != '"') {
      return false;
    }
    int start = p;
    p++;
    while (p < end) {
      p = AsciiScan.skipPlainText(b, p, end);
      if (p >= end) {
        return false;
      }
      int c = b[p] & 0xff;
      if (c == '"') {
        p++;
        return p - start <= MAX_STRING_BYTES;
      }
      if (c < 0x20) {
        return false;
      }
      if (c == '\\') {
        if (p + 1 >= end) {
          return false;
        }
        byte e = b[p + 1];
        if (e == 'u') {
          if (p + 6 > end) {
            return false;
          }
          int v = 0;
          for (int i = p + 2; i < p + 6; i++) {
            int h = Character.digit(b[i], 16);
            if (h < 0) {
              return false;
            }
            v = v * 16 + h;
          }
          if (v >= 0xD800 && v <= 0xDFFF) {
            return false;
          }
          p += 6;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r'
            || e == 't') {
          p += 2;
        } else {
          return false;
        }
      } else if (c < 0x80) {
        p++;
      } else if (!utf8(c)) {
        return false;
      }
    }
    return false;
  }

  /** One well-formed UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF). */
  private boolean utf8(int c) {
    int n;
    int lo = 0x80;
    int hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) {
        lo = 0xA0;
      } else if (c == 0xED) {
        hi = 0x9F;
      }
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) {
        lo = 0x90;
      } else if (c == 0xF4) {
        hi = 0x8F;
      }
    } else {
      return false;
    }
    if (p + n >= end) {
      return false;
    }
    int c1 = b[p + 1] & 0xff;
    if (c1 < lo || c1 > hi) {
      return false;
    }
    for (int i = 2; i <= n; i++) {
      int ci = b[p + i] & 0xff;
      if (ci < 0x80 || ci > 0xBF) {
        return false;
      }
    }
    p += n + 1;
    return true;
  }

  private void ws() {
    while (p < end) {
      byte c = b[p];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        p++;
      } else {
        return;
      }
    }
  }

  private boolean eat(char c) {
    if (p < end && b[p] == c) {
      p++;
      return true;
    }
    return false;
  }

  private boolean is(int from, int to, String word) {
    if (to - from != word.length()) {
      return false;
    }
    for (int i = 0; i < word.length(); i++) {
      if (b[from + i] != word.charAt(i)) {
        return false;
      }
    }
    return true;
  }
}
