package io.docstore.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link FileSystem} over real files that remembers what has been made durable, so a test can
 * simulate a power loss ({@link #crash()}) and inject faults: a full disk ({@link #setSpaceLimit}),
 * or failing operations of one kind ({@link #failAfter}).
 *
 * <p>What a crash drops, as on a POSIX file system after power loss: bytes written to a file since
 * its last {@code force}; files created since the last fsync of their directory; renames since the
 * last fsync of their directory (the old names and contents come back). Deletes are taken as
 * immediate. Files that existed before this object saw them count as fully durable.
 *
 * <p>{@link #crash()} drops every unforced byte. {@link #crash(Writeback)} models the kernel's
 * writeback instead: each 4 KiB page written since the last force survives or not on its own, in
 * any order, so a later page can be on disk while an earlier one is not (a lost page reads as
 * zeros), and the file keeps its full length or ends after its last surviving page.
 *
 * <p>Thread-safe: all bookkeeping is under one lock; the I/O itself goes to the real files.
 */
public final class FaultInjectingFileSystem implements FileSystem {

  /** The kinds of operation a fault can be injected into. */
  public enum Op {
    CREATE,
    WRITE,
    FORCE,
    RENAME,
    SYNC_DIR,
    DELETE,
    TRUNCATE
  }

  private final FileSystem real = FileSystem.real();
  private final Object lock = new Object();

  /** Durable length per file written through this object. */
  private final Map<Path, Long> syncedLength = new HashMap<>();

  /** Files whose directory entry is not yet durable. */
  private final Set<Path> undurableEntries = new HashSet<>();

  /** Renames not yet made durable by a directory fsync, oldest first. */
  private final List<PendingRename> pendingRenames = new ArrayList<>();

  private final List<Handle> openHandles = new ArrayList<>();
  private final Map<Op, Integer> failAfter = new EnumMap<>(Op.class);
  private long spaceLeft = Long.MAX_VALUE;
  private int crashes;

  /**
   * A rename not yet made durable; {@code newFile}: the source itself was never durable under any
   * name.
   */
  private record PendingRename(Path source, Path target, byte[] previousTarget, boolean newFile) {}

  /** Makes writes fail with "No space left on device" once {@code bytes} more bytes are written. */
  public void setSpaceLimit(long bytes) {
    synchronized (lock) {
      spaceLeft = bytes;
    }
  }

  /** Lifts the space limit. */
  public void clearSpaceLimit() {
    setSpaceLimit(Long.MAX_VALUE);
  }

  /** After {@code successes} more operations of kind {@code op} succeed, every later one fails. */
  public void failAfter(Op op, int successes) {
    synchronized (lock) {
      failAfter.put(op, successes);
    }
  }

  /** Removes all injected faults, including the space limit. */
  public void clearFaults() {
    synchronized (lock) {
      failAfter.clear();
      spaceLeft = Long.MAX_VALUE;
    }
  }

  /** The page size of the writeback model: what the kernel writes back as one unit. */
  public static final int PAGE = 4096;

  /**
   * Which pages written since a file's last force reach the disk before a power loss. Page 0 is the
   * page holding the file's durable length (its durable bytes are kept whatever the answer); the
   * pages after it count up to the one holding the file's last byte.
   */
  public interface Writeback {
    /** Whether unforced page {@code page} of {@code file} reached the disk. */
    boolean keeps(Path file, int page);

    /**
     * Whether {@code file}'s new length reached the disk: if so it keeps its full length and a lost
     * page reads as zeros; if not it ends after its last surviving page (or at its durable length).
     */
    boolean keepsLength(Path file);

    /** Nothing unforced survives: what {@link #crash()} does. */
    static Writeback none() {
      return mask(0, false);
    }

    /** Page k of every file survives iff bit k of {@code pages} is set (pages past 63 never do). */
    static Writeback mask(long pages, boolean keepsLength) {
      return new Writeback() {
        @Override
        public boolean keeps(Path file, int page) {
          return page < 64 && (pages >>> page & 1) != 0;
        }

        @Override
        public boolean keepsLength(Path file) {
          return keepsLength;
        }
      };
    }

    /** Each page and each file's length survives with probability 1/2, by {@code seed}. */
    static Writeback random(long seed) {
      return new Writeback() {
        @Override
        public boolean keeps(Path file, int page) {
          return coin(file, page);
        }

        @Override
        public boolean keepsLength(Path file) {
          return coin(file, -1);
        }

        private boolean coin(Path file, int page) {
          long h = seed * 0x9E3779B97F4A7C15L + file.getFileName().toString().hashCode();
          h = (h ^ page) * 0xBF58476D1CE4E5B9L;
          h ^= h >>> 31;
          h *= 0x94D049BB133111EBL;
          return ((h ^ h >>> 29) & 1) != 0;
        }
      };
    }
  }

  /**
   * The number of pages of {@code file} holding bytes written since its last force (0 when it has
   * none): the pages a {@link Writeback} decides about.
   */
  public int unsyncedPages(Path file) throws IOException {
    synchronized (lock) {
      Long synced = syncedLength.get(file);
      if (synced == null || !Files.exists(file)) {
        return 0;
      }
      long size = Files.size(file);
      return size <= synced ? 0 : (int) ((size - 1) / PAGE - synced / PAGE + 1);
    }
  }

  /** Number of {@link #crash()} calls so far. */
  public int crashes() {
    synchronized (lock) {
      return crashes;
    }
  }

  /**
   * Simulates a power loss: every open handle dies, unsynced bytes, undurable files and undurable
   * renames are rolled back on disk. The object is reusable afterwards, as after a reboot.
   */
  public void crash() throws IOException {
    crash(Writeback.none());
  }

  /**
   * Simulates a power loss after which the pages {@code writeback} names had been written back: as
   * {@link #crash()}, except that the bytes written since a file's last force are dropped page by
   * page, not all at once.
   */
  public void crash(Writeback writeback) throws IOException {
    synchronized (lock) {
      crashes++;
      for (Handle h : openHandles) {
        h.dead = true;
        h.ch.close();
      }
      openHandles.clear();
      for (Map.Entry<Path, Long> e : syncedLength.entrySet()) {
        Path p = e.getKey();
        if (Files.exists(p) && Files.size(p) > e.getValue()) {
          writeBack(p, e.getValue(), writeback);
        }
      }
      for (int i = pendingRenames.size() - 1; i >= 0; i--) {
        PendingRename r = pendingRenames.get(i);
        if (Files.exists(r.target())) {
          Files.move(r.target(), r.source(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        if (r.previousTarget() != null) {
          Files.write(r.target(), r.previousTarget());
        }
        if (r.newFile()) {
          Files.deleteIfExists(r.source());
        }
      }
      for (Path p : undurableEntries) {
        Files.deleteIfExists(p);
      }
      pendingRenames.clear();
      undurableEntries.clear();
      syncedLength.clear();
      failAfter.clear();
      spaceLeft = Long.MAX_VALUE;
    }
  }

  /**
   * Leaves on disk what {@code writeback} says survived of {@code p}'s bytes past {@code synced}.
   */
  private static void writeBack(Path p, long synced, Writeback writeback) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            p, java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
      long size = ch.size();
      long firstPage = synced / PAGE;
      long end = synced;
      ByteBuffer zeros = ByteBuffer.allocate(PAGE);
      for (long page = firstPage; page * PAGE < size; page++) {
        long from = Math.max(synced, page * PAGE);
        long to = Math.min(size, (page + 1) * PAGE);
        if (writeback.keeps(p, (int) (page - firstPage))) {
          end = to;
        } else {
          zeros.clear().limit((int) (to - from));
          long at = from;
          while (zeros.hasRemaining()) {
            at += ch.write(zeros, at);
          }
        }
      }
      ch.truncate(writeback.keepsLength(p) ? size : end);
    }
  }

  private void check(Op op, Path path) throws IOException {
    synchronized (lock) {
      Integer left = failAfter.get(op);
      if (left != null) {
        if (left <= 0) {
          throw new IOException("injected " + op + " failure on " + path);
        }
        failAfter.put(op, left - 1);
      }
    }
  }

  @Override
  public WritableFile create(Path path) throws IOException {
    check(Op.CREATE, path);
    FileChannel ch =
        FileChannel.open(
            path,
            java.nio.file.StandardOpenOption.CREATE_NEW,
            java.nio.file.StandardOpenOption.WRITE);
    synchronized (lock) {
      syncedLength.put(path, 0L);
      undurableEntries.add(path);
      Handle h = new Handle(path, ch, 0);
      openHandles.add(h);
      return h;
    }
  }

  @Override
  public WritableFile openAppend(Path path) throws IOException {
    FileChannel ch = FileChannel.open(path, java.nio.file.StandardOpenOption.WRITE);
    synchronized (lock) {
      syncedLength.putIfAbsent(path, ch.size());
      Handle h = new Handle(path, ch, ch.size());
      openHandles.add(h);
      return h;
    }
  }

  @Override
  public FileChannel openRead(Path path) throws IOException {
    return real.openRead(path);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    check(Op.RENAME, source);
    synchronized (lock) {
      byte[] previous = Files.exists(target) ? Files.readAllBytes(target) : null;
      real.rename(source, target);
      Long synced = syncedLength.remove(source);
      if (synced != null) {
        syncedLength.put(target, synced);
      }
      // Until the directory is synced, a crash brings back the old name and the old target (if the
      // file was never durable under any name, it is simply lost).
      boolean newFile = undurableEntries.remove(source);
      pendingRenames.add(new PendingRename(source, target, previous, newFile));
    }
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    check(Op.SYNC_DIR, dir);
    real.syncDirectory(dir);
    synchronized (lock) {
      Path d = dir.toAbsolutePath().normalize();
      undurableEntries.removeIf(p -> d.equals(p.toAbsolutePath().normalize().getParent()));
      pendingRenames.removeIf(r -> d.equals(r.target().toAbsolutePath().normalize().getParent()));
    }
  }

  @Override
  public void delete(Path path) throws IOException {
    check(Op.DELETE, path);
    real.delete(path);
    synchronized (lock) {
      syncedLength.remove(path);
      undurableEntries.remove(path);
    }
  }

  @Override
  public void truncate(Path path, long size) throws IOException {
    check(Op.TRUNCATE, path);
    real.truncate(path, size);
    synchronized (lock) {
      syncedLength.put(path, size);
    }
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    real.createDirectories(dir);
  }

  @Override
  public List<Path> list(Path dir) throws IOException {
    return real.list(dir);
  }

  @Override
  public boolean exists(Path path) {
    return real.exists(path);
  }

  @Override
  public long size(Path path) throws IOException {
    return real.size(path);
  }

  @Override
  public long usableSpace(Path path) throws IOException {
    synchronized (lock) {
      return Math.min(spaceLeft, real.usableSpace(path));
    }
  }

  /** An append handle whose writes count against the space limit and whose force is tracked. */
  private final class Handle implements WritableFile {
    private final Path path;
    private final FileChannel ch;
    private volatile long position;
    private volatile boolean dead;

    Handle(Path path, FileChannel ch, long position) {
      this.path = path;
      this.ch = ch;
      this.position = position;
    }

    private void alive() throws IOException {
      if (dead) {
        throw new IOException("file handle lost in simulated crash: " + path);
      }
    }

    @Override
    public Path path() {
      return path;
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
      alive();
      check(Op.WRITE, path);
      int allowed;
      synchronized (lock) {
        allowed = (int) Math.min(src.remaining(), spaceLeft);
        spaceLeft -= allowed;
      }
      boolean full = allowed < src.remaining();
      ByteBuffer part = src.duplicate();
      part.limit(part.position() + allowed);
      long pos = position;
      while (part.hasRemaining()) {
        pos += ch.write(part, pos);
      }
      src.position(src.position() + allowed);
      position = pos;
      if (full) {
        throw new NoSpaceException("No space left on device (injected): " + path);
      }
    }

    @Override
    public long position() {
      return position;
    }

    @Override
    public void force() throws IOException {
      alive();
      check(Op.FORCE, path);
      long pos = position;
      ch.force(false);
      synchronized (lock) {
        if (!dead) {
          syncedLength.merge(path, pos, Math::max);
        }
      }
    }

    @Override
    public void truncate(long size) throws IOException {
      alive();
      check(Op.TRUNCATE, path);
      ch.truncate(size);
      position = size;
      synchronized (lock) {
        syncedLength.computeIfPresent(path, (p, s) -> Math.min(s, size));
      }
    }

    @Override
    public void close() throws IOException {
      synchronized (lock) {
        openHandles.remove(this);
      }
      ch.close();
    }
  }
}
