package io.docstore.service.groups;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.docstore.queue.RecordBody;
import io.docstore.service.store.GroupKeys;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
 * document that is not a JSON object cannot be projected: its write is refused.
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

  /** For each top-level field name, the groups (indexes into {@link #names}) it belongs to. */
  private final Map<String, int[]> groupsOfField;

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
    Map<String, List<Integer>> byField = new HashMap<>();
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
        byField.computeIfAbsent(f, k -> new ArrayList<>()).add(g);
      }
      g++;
    }
    this.groupsOfField = new HashMap<>();
    byField.forEach(
        (f, list) -> groupsOfField.put(f, list.stream().mapToInt(Integer::intValue).toArray()));
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
    ByteArrayOutputStream[] out = new ByteArrayOutputStream[names.length];
    JsonGenerator[] gens = new JsonGenerator[names.length];
    try (JsonParser p = JSON.createParser(document)) {
      for (int i = 0; i < names.length; i++) {
        out[i] = new ByteArrayOutputStream(64);
        gens[i] = JSON.createGenerator(out[i]);
        gens[i].writeStartObject();
      }
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw notAnObject(id, "it does not start with '{'");
      }
      JsonToken t;
      int seen = 0;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        int[] in = groupsOfField.get(field);
        if (in == null) {
          p.skipChildren();
          continue;
        }
        if (in.length == 1) {
          gens[in[0]].writeFieldName(field);
          gens[in[0]].copyCurrentStructure(p);
        } else {
          com.fasterxml.jackson.databind.util.TokenBuffer value =
              new com.fasterxml.jackson.databind.util.TokenBuffer(p);
          value.copyCurrentStructure(p);
          for (int g : in) {
            gens[g].writeFieldName(field);
            try (JsonParser again = value.asParser()) {
              again.nextToken();
              gens[g].copyCurrentStructure(again);
            }
          }
        }
        if (++seen == groupsOfField.size()) {
          // Every grouped field found: the rest of the document (its long text, typically) is not
          // parsed. The write path's callers have checked that the document is one JSON object.
          return finish(gens, out);
        }
      }
      if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
        throw notAnObject(id, "it is not one JSON object");
      }
      return finish(gens, out);
    } catch (IOException e) {
      throw notAnObject(
          id,
          e instanceof com.fasterxml.jackson.core.JsonProcessingException j
              ? j.getOriginalMessage()
              : e.getMessage());
    }
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

  private static byte[][] finish(JsonGenerator[] gens, ByteArrayOutputStream[] out)
      throws IOException {
    byte[][] projections = new byte[gens.length][];
    for (int i = 0; i < gens.length; i++) {
      gens[i].writeEndObject();
      gens[i].close();
      projections[i] = out[i].toByteArray();
    }
    return projections;
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
