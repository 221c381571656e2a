package io.docstore.index.table;

import java.io.IOException;

/** A stream of entries in strictly ascending id order. Single-threaded. */
public interface EntryIterator extends java.io.Closeable {

  /** Advances to the next entry; false at the end. */
  boolean next() throws IOException;

  long id();

  /** The value, or -2 for a tombstone. */
  long value();

  @Override
  default void close() throws IOException {}
}
