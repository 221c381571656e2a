package io.docstore.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * An append-only file handle obtained from a {@link FileSystem}.
 *
 * <p>Thread-safety: {@link #write} and {@link #truncate} must be called by one thread at a time
 * (the owner); {@link #force} and {@link #position} may be called from any thread concurrently with
 * writes, which is what group commit relies on.
 */
public interface WritableFile extends Closeable {

  Path path();

  /**
   * Writes all remaining bytes of {@code src} at the end of the file. On failure part of {@code
   * src} may have been written ({@link #position} counts it): the owner cuts the file back with
   * {@link #truncate} to the length it had before. A full disk is a {@link NoSpaceException}.
   */
  void write(ByteBuffer src) throws IOException;

  /** Bytes written so far (the file's length as this handle sees it). */
  long position();

  /** Forces written data (and the length) to the device: {@code fdatasync}. */
  void force() throws IOException;

  /** Cuts the file back to {@code size} bytes. */
  void truncate(long size) throws IOException;
}
