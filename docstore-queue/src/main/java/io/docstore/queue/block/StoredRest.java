package io.docstore.queue.block;

/**
 * A record's body as a block of records compressed one by one stores it, for the space reclamation
 * to copy into a RELOCATED record without decompressing and compressing it again ({@link
 * BlockBuilder#stageRelocated}): {@code bytes} are the stored bytes, as they are when their length
 * is {@code length}, else one zstd frame of dictionary {@code dictionaryId} that decompresses to
 * {@code length} bytes.
 */
public record StoredRest(int dictionaryId, byte[] bytes, int length) {

  /** Whether the bytes are the body itself (not compressed). */
  public boolean plain() {
    return bytes.length == length;
  }
}
