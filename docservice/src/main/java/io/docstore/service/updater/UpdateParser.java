package io.docstore.service.updater;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.docstore.service.Update;
import java.io.IOException;
import java.util.Arrays;

/**
 * Parses and validates updates: a document body (must be one JSON object) and NDJSON update lines
 * ({@code {"id": N, "doc": {...}}} or {@code {"id": N, "op": "delete"}}), the format shared by
 * {@code POST /docs/_bulk}, the inbox and {@code docstore import}.
 *
 * <p>A line's {@code doc} is stored byte-exact (sliced from the input, not re-serialised). A
 * top-level numeric {@code discovered_at} of the document (epoch millis) is picked up for the
 * freshness metric. Each input goes first through a {@link JsonScanner} (one per thread), which
 * answers what it is sure of in one pass; Jackson decides the rest and words every error.
 * Thread-safe.
 */
public final class UpdateParser {

  private static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(200).build())
          .build();

  private final int maxBodyBytes;
  private final ThreadLocal<JsonScanner> scanners;

  public UpdateParser(int maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
    this.scanners = ThreadLocal.withInitial(() -> new JsonScanner(maxBodyBytes));
  }

  /** The document size limit. */
  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  /**
   * Validates a whole document body.
   *
   * @return its top-level {@code discovered_at}, or -1
   */
  public long validateDocument(byte[] buf, int off, int len) throws InvalidUpdateException {
    if (len > maxBodyBytes) {
      throw new DocumentTooLargeException(len, maxBodyBytes);
    }
    long discovered = scanners.get().document(buf, off, len);
    return discovered != JsonScanner.UNSURE
        ? discovered
        : validateDocumentWithJackson(buf, off, len);
  }

  /** {@link #validateDocument} by Jackson alone (the scanner's reference in tests). */
  long validateDocumentWithJackson(byte[] buf, int off, int len) throws InvalidUpdateException {
    if (len > maxBodyBytes) {
      throw new DocumentTooLargeException(len, maxBodyBytes);
    }
    try (JsonParser p = JSON.createParser(buf, off, len)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidUpdateException("document must be a JSON object");
      }
      long discovered = readObject(p);
      if (p.nextToken() != null) {
        throw new InvalidUpdateException("unexpected content after the JSON document");
      }
      return discovered;
    } catch (JsonParseException e) {
      throw new InvalidUpdateException("invalid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new InvalidUpdateException("invalid JSON: " + e.getMessage());
    }
  }

  /** The largest time to live accepted, in seconds (100 years). */
  public static final long MAX_TTL_SECONDS = 100L * 366 * 24 * 3600;

  /**
   * The expiry a put asks for, in epoch milliseconds, or 0 for none: from a time to live in seconds
   * ({@code ttl}, a positive integer) or an absolute time ({@code expiresAt}, epoch milliseconds,
   * positive), at most one of the two (each null when absent). An expiry in the past is accepted:
   * the document is then absent at once.
   *
   * @throws InvalidUpdateException when both are given, or one is not a positive integer in range
   */
  public static long expiry(String ttl, String expiresAt, long nowMillis)
      throws InvalidUpdateException {
    if (ttl != null && expiresAt != null) {
      throw new InvalidUpdateException("give a time to live or an expiry time, not both");
    }
    if (ttl != null) {
      return fromTtl(positive(ttl, "time to live (seconds)"), nowMillis);
    }
    return expiresAt == null ? 0 : positive(expiresAt, "expiry time (epoch milliseconds)");
  }

  private static long fromTtl(long seconds, long nowMillis) throws InvalidUpdateException {
    if (seconds > MAX_TTL_SECONDS) {
      throw new InvalidUpdateException(
          "time to live of " + seconds + " s is over the limit of " + MAX_TTL_SECONDS + " s");
    }
    return nowMillis + seconds * 1000;
  }

  private static long positive(String value, String what) throws InvalidUpdateException {
    long v;
    try {
      v = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new InvalidUpdateException(what + " must be a positive integer, got '" + value + "'");
    }
    if (v <= 0) {
      throw new InvalidUpdateException(what + " must be positive, got " + v);
    }
    return v;
  }

  /**
   * One parsed line whose document was not copied: it is {@code buf[docOffset,
   * docOffset+docLength)} of the parsed buffer; {@code docOffset} is -1 for a delete. {@code
   * expiresAtMillis} is the line's expiry ({@code "ttl"} or {@code "expiresAt"}), 0 for none.
   */
  public record Slice(
      long id, int docOffset, int docLength, long discoveredAtMillis, long expiresAtMillis) {
    public boolean isDelete() {
      return docOffset < 0;
    }
  }

  /** Parses one NDJSON update line (without its line terminator). */
  public Update parseLine(byte[] buf, int off, int len) throws InvalidUpdateException {
    Slice s = parseSlice(buf, off, len);
    return s.isDelete()
        ? Update.delete(s.id())
        : new Update(
            s.id(),
            Arrays.copyOfRange(buf, s.docOffset(), s.docOffset() + s.docLength()),
            s.discoveredAtMillis(),
            s.expiresAtMillis());
  }

  /**
   * {@link #parseLine} without copying the document (the bulk loader copies it straight into a
   * block).
   */
  public Slice parseSlice(byte[] buf, int off, int len) throws InvalidUpdateException {
    Slice s = scanners.get().line(buf, off, len);
    return s != null ? s : parseSliceWithJackson(buf, off, len);
  }

  /** {@link #parseSlice} by Jackson alone (the scanner's reference in tests). */
  Slice parseSliceWithJackson(byte[] buf, int off, int len) throws InvalidUpdateException {
    long id = -1;
    int docOff = -1;
    int docLen = 0;
    long discovered = -1;
    String op = null;
    String ttl = null;
    String expiresAt = null;
    try (JsonParser p = JSON.createParser(buf, off, len)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidUpdateException("line must be a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        switch (name) {
          case "id" -> id = readId(p, t);
          case "op" -> {
            if (t != JsonToken.VALUE_STRING) {
              throw new InvalidUpdateException("\"op\" must be a string");
            }
            op = p.getText();
          }
          case "doc" -> {
            if (t != JsonToken.START_OBJECT) {
              throw new InvalidUpdateException("\"doc\" must be a JSON object");
            }
            int start = (int) p.currentTokenLocation().getByteOffset();
            discovered = readObject(p);
            int end = (int) p.currentLocation().getByteOffset();
            if (end - start > maxBodyBytes) {
              throw new DocumentTooLargeException(end - start, maxBodyBytes);
            }
            docOff = off + start;
            docLen = end - start;
          }
          case "ttl" -> ttl = integer(p, t, "ttl");
          case "expiresAt" -> expiresAt = integer(p, t, "expiresAt");
          default -> p.skipChildren();
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        throw new InvalidUpdateException("unexpected content after the JSON object");
      }
    } catch (JsonParseException e) {
      throw new InvalidUpdateException("invalid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new InvalidUpdateException("invalid JSON: " + e.getMessage());
    }
    if (id < 0) {
      throw new InvalidUpdateException("missing \"id\"");
    }
    if (op == null || op.equals("put")) {
      if (docOff < 0) {
        throw new InvalidUpdateException("missing \"doc\" (or \"op\":\"delete\")");
      }
      return new Slice(
          id, docOff, docLen, discovered, expiry(ttl, expiresAt, System.currentTimeMillis()));
    }
    if (op.equals("delete")) {
      if (docOff >= 0) {
        throw new InvalidUpdateException("a delete carries no \"doc\"");
      }
      if (ttl != null || expiresAt != null) {
        throw new InvalidUpdateException("a delete carries no \"ttl\" or \"expiresAt\"");
      }
      return new Slice(id, -1, 0, -1, 0);
    }
    throw new InvalidUpdateException("unknown \"op\" '" + op + "': expected put or delete");
  }

  /** The text of an integral field (checked for range by {@link #expiry}). */
  private static String integer(JsonParser p, JsonToken t, String name)
      throws IOException, InvalidUpdateException {
    if (t != JsonToken.VALUE_NUMBER_INT) {
      throw new InvalidUpdateException("\"" + name + "\" must be a positive integer");
    }
    return p.getText();
  }

  private static long readId(JsonParser p, JsonToken t) throws IOException, InvalidUpdateException {
    if (t != JsonToken.VALUE_NUMBER_INT) {
      throw new InvalidUpdateException("\"id\" must be a non-negative integer");
    }
    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw new InvalidUpdateException(
          "\"id\" " + p.getText() + " is out of range (max " + Long.MAX_VALUE + ")");
    }
    long id = p.getLongValue();
    if (id < 0) {
      throw new InvalidUpdateException("\"id\" must be non-negative, got " + id);
    }
    return id;
  }

  /**
   * Reads an object whose START_OBJECT is the current token through its END_OBJECT, validating
   * everything inside; returns its top-level integral {@code discovered_at} or -1.
   */
  private static long readObject(JsonParser p) throws IOException {
    long discovered = -1;
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
        p.skipChildren();
      } else if (name.equals("discovered_at")
          && v == JsonToken.VALUE_NUMBER_INT
          && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
        discovered = p.getLongValue();
      }
    }
    if (t != JsonToken.END_OBJECT) {
      throw new JsonParseException(p, "unterminated object");
    }
    return discovered;
  }
}
