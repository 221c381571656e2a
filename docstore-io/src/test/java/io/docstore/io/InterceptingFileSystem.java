package io.docstore.io;

import io.docstore.io.FaultInjectingFileSystem.Op;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;

/**
 * A test {@link FileSystem} that calls a hook before every mutating operation (on the file system
 * and on the handles it returns) and then forwards to another file system. The hook may throw to
 * fail the operation (a crashed process must not touch the disk) or block to hold a background
 * thread at a known point (to observe what the engine reports meanwhile). Reads are forwarded
 * unhooked. Thread-safe if the delegate and the hook are.
 */
public final class InterceptingFileSystem implements FileSystem {

  /** Called before a mutating operation with its kind and the file or directory it touches. */
  @FunctionalInterface
  public interface Hook {
    void before(Op op, Path path) throws IOException;
  }

  private final FileSystem fs;
  private final Hook hook;

  public InterceptingFileSystem(FileSystem fs, Hook hook) {
    this.fs = fs;
    this.hook = hook;
  }

  @Override
  public WritableFile create(Path path) throws IOException {
    hook.before(Op.CREATE, path);
    return new Handle(fs.create(path));
  }

  @Override
  public WritableFile openAppend(Path path) throws IOException {
    hook.before(Op.WRITE, path);
    return new Handle(fs.openAppend(path));
  }

  @Override
  public FileChannel openRead(Path path) throws IOException {
    return fs.openRead(path);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    hook.before(Op.RENAME, source);
    fs.rename(source, target);
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    hook.before(Op.SYNC_DIR, dir);
    fs.syncDirectory(dir);
  }

  @Override
  public void delete(Path path) throws IOException {
    hook.before(Op.DELETE, path);
    fs.delete(path);
  }

  @Override
  public void truncate(Path path, long size) throws IOException {
    hook.before(Op.TRUNCATE, path);
    fs.truncate(path, size);
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    hook.before(Op.CREATE, dir);
    fs.createDirectories(dir);
  }

  @Override
  public List<Path> list(Path dir) throws IOException {
    return fs.list(dir);
  }

  @Override
  public boolean exists(Path path) {
    return fs.exists(path);
  }

  @Override
  public long size(Path path) throws IOException {
    return fs.size(path);
  }

  @Override
  public long usableSpace(Path path) throws IOException {
    return fs.usableSpace(path);
  }

  private final class Handle implements WritableFile {
    private final WritableFile f;

    Handle(WritableFile f) {
      this.f = f;
    }

    @Override
    public Path path() {
      return f.path();
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
      hook.before(Op.WRITE, f.path());
      f.write(src);
    }

    @Override
    public long position() {
      return f.position();
    }

    @Override
    public void force() throws IOException {
      hook.before(Op.FORCE, f.path());
      f.force();
    }

    @Override
    public void truncate(long size) throws IOException {
      hook.before(Op.TRUNCATE, f.path());
      f.truncate(size);
    }

    @Override
    public void close() throws IOException {
      f.close();
    }
  }
}
