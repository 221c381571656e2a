package io.docstore.io;

import com.sun.jna.Native;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read-only memory mapping of a file, made lazily in fixed chunks of {@value #CHUNK_SHIFT}-bit
 * size (64 MiB), for random reads without a system call or a copy once the pages are resident.
 *
 * <p>Every chunk is advised {@code MADV_RANDOM} before it is used: a page fault then reads just
 * that page, never the disk's read-ahead window (8 MiB on the machines measured,
 * docs/background.md), which is what made unadvised mappings collapse under memory pressure. Where
 * the advice cannot be given (not Linux, no native access) nothing is mapped at all and {@link
 * #chunk} returns null, so the caller keeps its positional reads.
 *
 * <p>A chunk is mapped only over bytes that will not change or shrink while the file is open: the
 * caller names that end ({@code stableEnd}). A chunk is mapped whole once the stable end passes it,
 * or up to the stable end when that end is final (a sealed or immutable file). A read that
 * straddles two chunks, or falls in a chunk not yet mappable, gets null: the caller reads it with a
 * positional read. Truncating a mapped file under a live reader makes the JVM raise an {@link
 * InternalError} at the access; callers map only files that nothing truncates while open.
 *
 * <p>Thread-safe: chunks are published through a volatile array; the buffers handed out are shared,
 * so callers use absolute gets only (or their own {@code duplicate()}).
 */
public final class MappedFile {

  private static final Logger log = LoggerFactory.getLogger(MappedFile.class);

  public static final int CHUNK_SHIFT = 26;
  public static final long CHUNK_SIZE = 1L << CHUNK_SHIFT;
  private static final long CHUNK_MASK = CHUNK_SIZE - 1;

  private final FileChannel channel;
  private final Path path;
  private final ByteOrder order;

  /**
   * Index k holds chunk k (null until mapped); replaced whole, under {@code this}, when it grows.
   */
  private volatile ByteBuffer[] chunks = new ByteBuffer[0];

  private volatile boolean disabled = LibC.get() == null;
  private boolean closed;

  public MappedFile(FileChannel channel, Path path, ByteOrder order) {
    this.channel = channel;
    this.path = path;
    this.order = order;
  }

  /** Whether mapped reads are possible here at all (Linux with native access). */
  public static boolean supported() {
    return LibC.get() != null;
  }

  /**
   * Page faults of the calling thread that waited for the disk so far ({@code ru_majflt} of {@code
   * getrusage(RUSAGE_THREAD)}), or -1 where that cannot be asked. A reader that saw a mapped read
   * take long compares it with an earlier value to tell a cold page (a major fault) from a thread
   * that was merely descheduled. Costs a system call: for the slow path only.
   */
  public static long threadMajorFaults() {
    LibC.Calls libc = LibC.get();
    if (libc == null) {
      return -1;
    }
    long[] usage = new long[LibC.RUSAGE_LONGS];
    try {
      libc.getrusage(LibC.RUSAGE_THREAD, usage);
    } catch (LinkageError | RuntimeException e) {
      return -1;
    }
    return usage[LibC.RU_MAJFLT];
  }

  /** Index of file offset {@code offset} in the buffer {@link #chunk} returns for it. */
  public static int indexInChunk(long offset) {
    return (int) (offset & CHUNK_MASK);
  }

  /**
   * The mapped chunk holding bytes {@code [offset, offset + length)}, or null if that range is not
   * (yet) mappable: it straddles chunks, reaches past {@code stableEnd}, lies in a chunk that is
   * not whole yet while the end may still grow, or mapping failed (logged once; the file then stays
   * unmapped). Index {@link #indexInChunk(long) indexInChunk(offset)} of the result is byte {@code
   * offset}.
   *
   * @param stableEnd bytes from the start of the file that are written and will not change or
   *     shrink
   * @param endIsFinal whether {@code stableEnd} is the file's final length
   */
  public ByteBuffer chunk(long offset, int length, long stableEnd, boolean endIsFinal) {
    if (disabled || offset < 0 || length <= 0 || offset + length > stableEnd) {
      return null;
    }
    int k = (int) (offset >>> CHUNK_SHIFT);
    if (((offset + length - 1) >>> CHUNK_SHIFT) != k) {
      return null;
    }
    ByteBuffer[] cs = chunks;
    ByteBuffer c = k < cs.length ? cs[k] : null;
    if (c != null) {
      return c;
    }
    long start = (long) k << CHUNK_SHIFT;
    long whole = start + CHUNK_SIZE;
    if (whole > stableEnd && !endIsFinal) {
      return null;
    }
    return map(k, start, Math.min(whole, stableEnd) - start);
  }

  private synchronized ByteBuffer map(int k, long start, long size) {
    ByteBuffer[] cs = chunks;
    if (k < cs.length && cs[k] != null) {
      return cs[k];
    }
    if (disabled || closed) {
      return null;
    }
    MappedByteBuffer m;
    try {
      m = channel.map(FileChannel.MapMode.READ_ONLY, start, size);
    } catch (IOException | RuntimeException e) {
      disable("mapping " + size + " bytes at offset " + start + " failed", e);
      return null;
    }
    try {
      LibC.get().madvise(Native.getDirectBufferPointer(m), size, LibC.MADV_RANDOM);
    } catch (LinkageError | RuntimeException e) { // LastErrorException is a RuntimeException
      unmap(m);
      disable("madvise(MADV_RANDOM) failed", e);
      return null;
    }
    ByteBuffer c = m.order(order);
    ByteBuffer[] grown = k < cs.length ? cs.clone() : Arrays.copyOf(cs, k + 1);
    grown[k] = c;
    chunks = grown;
    return c;
  }

  private void disable(String what, Throwable e) {
    disabled = true;
    log.warn(
        "{}: {}; this file is read with positional reads from now on ({})",
        path,
        what,
        e.toString());
  }

  /**
   * Stops mapping and unmaps every chunk at once, returning the address space and, for a deleted
   * file, its disk blocks. Only for a caller that knows no reader can still use a chunk (the
   * reference count of an index table reached zero): a read of an unmapped chunk crashes the JVM.
   */
  public synchronized void unmapNow() {
    closed = true;
    ByteBuffer[] cs = chunks;
    chunks = new ByteBuffer[0];
    for (ByteBuffer c : cs) {
      if (c != null) {
        unmap(c);
      }
    }
  }

  /**
   * Stops mapping and drops this file's chunks; the garbage collector unmaps them once no reader
   * holds one. For files whose readers are not counted (queue segments).
   */
  public synchronized void release() {
    closed = true;
    chunks = new ByteBuffer[0];
  }

  /**
   * {@code sun.misc.Unsafe.invokeCleaner} bound to the instance, or null where it is not available.
   */
  private static final MethodHandle INVOKE_CLEANER = invokeCleaner();

  private static MethodHandle invokeCleaner() {
    try {
      Class<?> c = Class.forName("sun.misc.Unsafe");
      Field f = c.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return MethodHandles.lookup()
          .findVirtual(c, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
          .bindTo(f.get(null));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  private static void unmap(ByteBuffer b) {
    if (INVOKE_CLEANER == null) {
      return; // the garbage collector unmaps it
    }
    try {
      INVOKE_CLEANER.invokeExact(b);
    } catch (Throwable e) {
      log.debug("could not unmap a chunk at once; the garbage collector will", e);
    }
  }
}
