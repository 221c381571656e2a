package io.docstore.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** {@link FileSystem} over the platform's files, with directory fsync via a read-only channel. */
final class RealFileSystem implements FileSystem {

  static final RealFileSystem INSTANCE = new RealFileSystem();

  private RealFileSystem() {}

  @Override
  public WritableFile create(Path path) throws IOException {
    FileChannel ch =
        FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    return new ChannelFile(path, ch, 0);
  }

  @Override
  public WritableFile openAppend(Path path) throws IOException {
    FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE);
    return new ChannelFile(path, ch, ch.size());
  }

  @Override
  public FileChannel openRead(Path path) throws IOException {
    return FileChannel.open(path, StandardOpenOption.READ);
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    try {
      Files.move(
          source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("atomic rename not supported from " + source + " to " + target, e);
    }
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  @Override
  public void delete(Path path) throws IOException {
    Files.deleteIfExists(path);
  }

  @Override
  public void truncate(Path path, long size) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
      ch.truncate(size);
      ch.force(true);
    }
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    Path abs = dir.toAbsolutePath();
    List<Path> missing = new ArrayList<>();
    for (Path p = abs; p != null && !Files.isDirectory(p); p = p.getParent()) {
      missing.add(0, p);
    }
    for (Path p : missing) {
      try {
        Files.createDirectory(p);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        if (!Files.isDirectory(p)) {
          throw e;
        }
      }
      syncDirectory(p.getParent());
    }
  }

  @Override
  public List<Path> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }

  @Override
  public boolean exists(Path path) {
    return Files.exists(path);
  }

  @Override
  public long size(Path path) throws IOException {
    return Files.size(path);
  }

  @Override
  public long usableSpace(Path path) throws IOException {
    return Files.getFileStore(path).getUsableSpace();
  }

  /** Append handle over a {@link FileChannel}; the position is tracked here, not by the channel. */
  static final class ChannelFile implements WritableFile {
    private final Path path;
    private final FileChannel ch;
    private volatile long position;

    ChannelFile(Path path, FileChannel ch, long position) {
      this.path = path;
      this.ch = ch;
      this.position = position;
    }

    @Override
    public Path path() {
      return path;
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
      long pos = position;
      try {
        while (src.hasRemaining()) {
          pos += ch.write(src, pos);
        }
      } catch (IOException e) {
        position = pos;
        throw NoSpaceException.classify(e);
      }
      position = pos;
    }

    @Override
    public long position() {
      return position;
    }

    @Override
    public void force() throws IOException {
      ch.force(false);
    }

    @Override
    public void truncate(long size) throws IOException {
      ch.truncate(size);
      position = size;
    }

    @Override
    public void close() throws IOException {
      ch.close();
    }
  }
}
