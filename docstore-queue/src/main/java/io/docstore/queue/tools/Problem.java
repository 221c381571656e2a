package io.docstore.queue.tools;

import java.nio.file.Path;

/** One problem found by {@link QueueVerifier}: where (file and byte offset) and what. */
public record Problem(Path file, long offset, String description) {

  @Override
  public String toString() {
    return file + " @" + offset + ": " + description;
  }
}
