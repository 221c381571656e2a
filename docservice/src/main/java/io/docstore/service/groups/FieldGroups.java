package io.docstore.service.groups;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.docstore.queue.RecordBody;
import io.docstore.service.store.GroupKeys;
import io.docstore.service.updater.JsonScanner;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The store's field groups ({@code docstore.groups}): named sets of top-level JSON fields, each
 * projected from every document written, and the projection itself. A projection is the JSON object
 * of the document's fields in the group, in the document's order, each value copied as it is (a
 * field the document lacks is left out, so a document with none of them projects to {@code {}}). A
 * document that is not a JSON object cannot be projected: its write is refused. The document is
 * read only up to its last grouped field, in one pass of a {@link JsonScanner}; Jackson decides
 * what the scanner is unsure of (escapes or non-ASCII in names, anything invalid) and words the
 * refusal.
 *
 * <p>Immutable and thread-safe.
 */
public final class FieldGroups {

  /** No groups: documents are stored and read whole only. */
  public static final FieldGroups NONE = new FieldGroups(Map.of());

  private static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(200).build())
          .build();

  private final String[] names;
  private final byte[][] encodedNames;
  private final Map<String, List<String>> fields;

  /** A grouped top-level field: its number, its name quoted for a projection, its groups. */
  private record Field(int index, byte[] quotedName, int[] groups) {}

  /** For each grouped top-level field name, its groups (indexes into {@link #names}). */
  private final Map<String, Field> byField;

  /** The grouped fields by number, and their names' UTF-8 bytes, for the scanner's path. */
  private final Field[] fieldList;

  private final byte[][] rawNames;

  /** The scanner's path, one per thread; null when there are too many fields for it (over 64). */
  private final ThreadLocal<JsonScanner> scanners;

  private final JsonScanner.FieldNames fieldNames = this::fieldNumber;

  /**
   * @param groups name → fields, in the order to keep (names of 1 to 64 characters of {@code
   *     [A-Za-z0-9_-]}, at least one field each)
   * @throws IllegalArgumentException for an invalid name, an empty group or too many groups
   */
  public FieldGroups(Map<String, List<String>> groups) {
    if (groups.size() > 32) {
      throw new IllegalArgumentException("at most 32 groups, got " + groups.size());
    }
    this.fields = new LinkedHashMap<>();
    this.names = new String[groups.size()];
    this.encodedNames = new byte[groups.size()][];
    Map<String, List<Integer>> groupsByField = new LinkedHashMap<>();
    int g = 0;
    for (Map.Entry<String, List<String>> e : groups.entrySet()) {
      String name = e.getKey();
      if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
        throw new IllegalArgumentException(
            "group name '" + name + "': 1 to 64 characters of letters, digits, '_' and '-'");
      }
      if (e.getValue().isEmpty()) {
        throw new IllegalArgumentException("group '" + name + "' has no fields");
      }
      names[g] = name;
      encodedNames[g] = name.getBytes(StandardCharsets.UTF_8);
      fields.put(name, List.copyOf(e.getValue()));
      for (String f : Set.copyOf(e.getValue())) {
        groupsByField.computeIfAbsent(f, k -> new ArrayList<>()).add(g);
      }
      g++;
    }
    this.byField = new HashMap<>();
    for (Map.Entry<String, List<Integer>> e : groupsByField.entrySet()) {
      String quoted =
          "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(e.getKey())) + "\":";
      byField.put(
          e.getKey(),
          new Field(
              byField.size(),
              quoted.getBytes(StandardCharsets.UTF_8),
              e.getValue().stream().mapToInt(Integer::intValue).toArray()));
    }
    this.fieldList = new Field[byField.size()];
    this.rawNames = new byte[byField.size()][];
    for (Map.Entry<String, Field> e : byField.entrySet()) {
      fieldList[e.getValue().index] = e.getValue();
      rawNames[e.getValue().index] = e.getKey().getBytes(StandardCharsets.UTF_8);
    }
    this.scanners =
        fieldList.length <= 64 ? ThreadLocal.withInitial(() -> new JsonScanner(0)) : null;
  }

  /** Whether any group is configured. */
  public boolean configured() {
    return names.length > 0;
  }

  /** The group names, in configuration order. */
  public List<String> names() {
    return List.of(names);
  }

  /** Group name → its fields. */
  public Map<String, List<String>> fields() {
    return fields;
  }

  /** Whether {@code name} is a configured group. */
  public boolean has(String name) {
    return fields.containsKey(name);
  }

  /** The UTF-8 bytes of group {@code name}, as stored in GROUPS records. */
  public byte[] encodedName(String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return encodedNames[i];
      }
    }
    throw new IllegalArgumentException("unknown group " + name);
  }

  /**
   * The projection of {@code document} for each group, in the order of {@link #names()}.
   *
   * @throws IllegalArgumentException if the document is not a JSON object (the reason says where it
   *     is not)
   */
  public byte[][] project(long id, byte[] document) {
    if (scanners != null) {
      int[] found = new int[3 * fieldList.length];
      int n = scanners.get().topLevelFields(document, fieldNames, fieldList.length, found);
      if (n >= 0) {
        return projections(document, found, n);
      }
    }
    return projectWithJackson(id, document);
  }

  /** The number of the grouped field whose UTF-8 name is {@code buf[from, to)}, or -1. */
  private int fieldNumber(byte[] buf, int from, int to) {
    for (int i = 0; i < rawNames.length; i++) {
      byte[] n = rawNames[i];
      if (n.length == to - from && Arrays.equals(n, 0, n.length, buf, from, to)) {
        return i;
      }
    }
    return -1;
  }

  /** Each group's projection of the {@code n} fields the scanner found (number, from, to). */
  private byte[][] projections(byte[] document, int[] found, int n) {
    byte[][] out = new byte[names.length][];
    for (int g = 0; g < names.length; g++) {
      int size = 2;
      int members = 0;
      for (int k = 0; k < n; k++) {
        Field f = fieldList[found[3 * k]];
        if (inGroup(f, g)) {
          size +=
              (members++ > 0 ? 1 : 0) + f.quotedName.length + found[3 * k + 2] - found[3 * k + 1];
        }
      }
      byte[] p = new byte[size];
      int at = 0;
      p[at++] = '{';
      for (int k = 0; k < n; k++) {
        Field f = fieldList[found[3 * k]];
        if (inGroup(f, g)) {
          if (at > 1) {
            p[at++] = ',';
          }
          System.arraycopy(f.quotedName, 0, p, at, f.quotedName.length);
          at += f.quotedName.length;
          int len = found[3 * k + 2] - found[3 * k + 1];
          System.arraycopy(document, found[3 * k + 1], p, at, len);
          at += len;
        }
      }
      p[at] = '}';
      out[g] = p;
    }
    return out;
  }

  private static boolean inGroup(Field f, int g) {
    for (int x : f.groups) {
      if (x == g) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@link #project} by Jackson alone: what the scanner is unsure of (its reference in tests), and
   * the wording of every refusal.
   */
  byte[][] projectWithJackson(long id, byte[] document) {
    ByteArrayOutputStream[] out = new ByteArrayOutputStream[names.length];
    for (int i = 0; i < names.length; i++) {
      out[i] = new ByteArrayOutputStream(128);
      out[i].write('{');
    }
    boolean[] copied = new boolean[byField.size()];
    int seen = 0;
    try (JsonParser p = JSON.createParser(document)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw notAnObject(id, "it does not start with '{'");
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        Field f = byField.get(p.currentName());
        JsonToken v = p.nextToken();
        if (f == null || copied[f.index]) {
          p.skipChildren(); // a string is skipped without being decoded
          continue;
        }
        // The value's bytes as written: from its first token to just past its last.
        int from = (int) p.currentTokenLocation().getByteOffset();
        if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
          p.skipChildren();
        } else {
          p.finishToken();
        }
        int to = (int) p.currentLocation().getByteOffset();
        copied[f.index] = true;
        for (int g : f.groups) {
          ByteArrayOutputStream o = out[g];
          if (o.size() > 1) {
            o.write(',');
          }
          o.write(f.quotedName, 0, f.quotedName.length);
          o.write(document, from, to - from);
        }
        if (++seen == copied.length) {
          // Every grouped field found: the rest of the document (its long text, typically) is not
          // parsed. The write path's callers have checked that the document is one JSON object.
          return finish(out);
        }
      }
      if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
        throw notAnObject(id, "it is not one JSON object");
      }
      return finish(out);
    } catch (IOException e) {
      throw notAnObject(
          id,
          e instanceof com.fasterxml.jackson.core.JsonProcessingException j
              ? j.getOriginalMessage()
              : e.getMessage());
    }
  }

  private static byte[][] finish(ByteArrayOutputStream[] out) {
    byte[][] projections = new byte[out.length][];
    for (int i = 0; i < out.length; i++) {
      out[i].write('}');
      projections[i] = out[i].toByteArray();
    }
    return projections;
  }

  /**
   * {@link #project}, checked for the write path: an ID a group key can hold ({@link
   * GroupKeys#MAX_DOCUMENT_ID}), projections together within {@code maxBytes}.
   *
   * @throws IllegalArgumentException with the reason, naming the document
   */
  public byte[][] projectForWrite(long id, byte[] document, int maxBytes) {
    GroupKeys.checkDocumentId(id, true);
    byte[][] p = project(id, document);
    int total = 0;
    for (byte[] b : p) {
      total += b.length;
    }
    if (total > maxBytes) {
      throw new IllegalArgumentException(
          "the field groups of document "
              + id
              + " project to "
              + total
              + " bytes, over the limit of "
              + maxBytes);
    }
    return p;
  }

  /**
   * The body of the GROUPS record of {@code projections} (in the order of {@link #names()}):
   * written with its document ({@code sourceSequence} -1) or a re-projection of that version.
   */
  public byte[] record(long sourceSequence, long expiresAtMillis, byte[][] projections) {
    return RecordBody.groups(sourceSequence, expiresAtMillis, names, projections);
  }

  private IllegalArgumentException notAnObject(long id, String why) {
    return new IllegalArgumentException(
        "document "
            + id
            + " is not a JSON object ("
            + why
            + "); with field groups configured ("
            + String.join(", ", names)
            + ") every document must be one, so that its groups can be projected");
  }

  @Override
  public String toString() {
    return fields.toString();
  }
}
