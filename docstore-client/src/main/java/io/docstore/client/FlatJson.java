package io.docstore.client;

import java.util.HashMap;
import java.util.Map;

/**
 * Reads the admin port's small answers: one JSON object whose values are integers or strings
 * ({@code {"id":7,"seq":12}}, {@code {"line":2,"status":400,"error":"..."}}, {@code
 * {"error":"..."}}). Anything else (nesting, arrays, fractions, literals) is refused: the client
 * has no JSON library, and the service sends nothing else on these routes. Stateless.
 */
final class FlatJson {

  private final String s;
  private int pos;

  private FlatJson(String s) {
    this.s = s;
  }

  /**
   * The members of the object {@code text}: {@link Long} or {@link String} values.
   *
   * @throws IllegalArgumentException if {@code text} is not such an object
   */
  static Map<String, Object> parse(String text) {
    FlatJson p = new FlatJson(text);
    Map<String, Object> out = new HashMap<>();
    p.expect('{');
    if (p.peek() != '}') {
      do {
        String key = p.string();
        p.expect(':');
        out.put(key, p.peek() == '"' ? p.string() : p.integer());
      } while (p.consume(','));
    }
    p.expect('}');
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("text after the object");
    }
    return out;
  }

  private char peek() {
    skipSpace();
    if (pos >= s.length()) {
      throw error("unexpected end");
    }
    return s.charAt(pos);
  }

  private boolean consume(char c) {
    if (peek() == c) {
      pos++;
      return true;
    }
    return false;
  }

  private void expect(char c) {
    if (!consume(c)) {
      throw error("expected '" + c + "'");
    }
  }

  private void skipSpace() {
    while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) {
      pos++;
    }
  }

  private long integer() {
    int start = pos;
    if (pos < s.length() && s.charAt(pos) == '-') {
      pos++;
    }
    while (pos < s.length() && Character.isDigit(s.charAt(pos))) {
      pos++;
    }
    try {
      return Long.parseLong(s.substring(start, pos));
    } catch (NumberFormatException e) {
      throw error("expected an integer or a string");
    }
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      if (pos >= s.length()) {
        throw error("unterminated string");
      }
      char c = s.charAt(pos++);
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      if (pos >= s.length()) {
        throw error("unterminated escape");
      }
      char e = s.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'u' -> {
          if (pos + 4 > s.length()) {
            throw error("short \\u escape");
          }
          try {
            b.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
          } catch (NumberFormatException ex) {
            throw error("bad \\u escape");
          }
          pos += 4;
        }
        default -> throw error("bad escape \\" + e);
      }
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at offset " + pos + " of " + s);
  }
}
