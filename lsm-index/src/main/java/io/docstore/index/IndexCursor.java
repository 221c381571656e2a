package io.docstore.index;

import java.io.IOException;

/**
 * Live entries in ascending id order over a consistent snapshot (see {@link LsmIndex#scan}).
 * Single-threaded. Close it: an open cursor keeps the files of its snapshot alive.
 */
public interface IndexCursor extends java.io.Closeable {

  /** Advances to the next live entry; false at the end. */
  boolean next() throws IOException;

  long id();

  long value();
}
