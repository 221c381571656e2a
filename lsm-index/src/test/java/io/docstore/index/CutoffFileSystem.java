package io.docstore.index;

import io.docstore.io.FileSystem;
import io.docstore.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;

/**
 * A test file system that stops a "dead" process: once {@link #cut()} is called every mutating
 * operation through it fails, so the background threads of an index whose process a crash test has
 * declared dead cannot touch the disk after the simulated power loss.
 */
final class CutoffFileSystem implements FileSystem {

  private final FileSystem fs;
  private volatile boolean cut;

  CutoffFileSystem(FileSystem fs) {
    this.fs = fs;
  }

  void cut() {
    cut = true;
  }

  private void check(Path p) throws IOException {
    if (cut) {
      throw new IOException("process is dead (simulated crash): " + p);
    }
  }

  @Override
  public WritableFile create(Path path) throws IOException {
    check(path);
    return guard(fs.create(path));
  }

  @Override
  public WritableFile openAppend(Path path) throws IOException {
    check(path);
    return guard(fs.openAppend(path));
  }

  private WritableFile guard(WritableFile f) {
    return new WritableFile() {
      @Override
      public Path path() {
        return f.path();
      }

      @Override
      public void write(ByteBuffer src) throws IOException {
        check(f.path());
        f.write(src);
      }

      @Override
      public long position() {
        return f.position();
      }

      @Override
      public void force() throws IOException {
        check(f.path());
        f.force();
      }

      @Override
      public void truncate(long size) throws IOException {
        check(f.path());
        f.truncate(size);
      }

      @Override
      public void close() throws IOException {
        f.close();
      }
    };
  }

  @Override
  public FileChannel openRead(Path path) throws IOException {
    return fs.openRead(path);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    check(source);
    fs.rename(source, target);
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    check(dir);
    fs.syncDirectory(dir);
  }

  @Override
  public void delete(Path path) throws IOException {
    check(path);
    fs.delete(path);
  }

  @Override
  public void truncate(Path path, long size) throws IOException {
    check(path);
    fs.truncate(path, size);
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    check(dir);
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
}
