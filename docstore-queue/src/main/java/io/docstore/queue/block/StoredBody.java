package io.docstore.queue.block;

/**
 * A record's body as a block of records compressed one by one stores it: {@code bytes} are the
 * stored bytes, the body itself when their length is {@code length}, else one zstd frame of
 * dictionary {@code dictionaryId} that decompresses to {@code length} bytes. Made ahead of an
 * append, outside the writer's lock ({@link RecordDictionary#compress}), or taken from an existing
 * record (the space reclamation copies a victim's body into its RELOCATED record, see {@link
 * BlockBuilder#stageRelocated}), so that the writer copies those bytes instead of compressing.
 */
public record StoredBody(int dictionaryId, byte[] bytes, int length) {

  /** Whether the bytes are the body itself (not compressed). */
  public boolean plain() {
    return bytes.length == length;
  }
}
