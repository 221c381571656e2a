package io.docstore.bench.engines;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Child JVM of {@link EngineCrashTest}: opens one engine, puts {@code n} keys in batches of {@link
 * #BATCH} with a {@link Engine#flush()} after each, prints {@code FLUSHED}, puts a few more that
 * are never flushed, and waits to be killed. Keys and values are a pure function of the index, so
 * the parent can check them without being told what was written.
 */
public final class CrashWriter {

  static final int BATCH = 100;

  private CrashWriter() {}

  static EngineSettings settings(Path dir) {
    return new EngineSettings(dir, 8 << 20, 1 << 20, 4096);
  }

  static byte[] key(long i) {
    return ByteBuffer.allocate(8).putLong(i * 0x9E3779B97F4A7C15L >>> 1).array();
  }

  static byte[] value(long i) {
    SplittableRandom r = new SplittableRandom(i);
    byte[] v = new byte[64 + r.nextInt(900)];
    for (int j = 0; j < v.length; j++) {
      v[j] = (byte) r.nextInt();
    }
    return v;
  }

  public static void main(String[] args) throws Exception {
    String engine = args[0];
    Path dir = Path.of(args[1]);
    int n = Integer.parseInt(args[2]);
    Engine e = Engines.open(engine, settings(dir));
    for (int i = 0; i < n; i++) {
      e.put(key(i), value(i));
      if ((i + 1) % BATCH == 0) {
        e.flush();
      }
    }
    e.flush();
    System.out.println("FLUSHED");
    System.out.flush();
    for (int i = n; i < n + BATCH / 2; i++) {
      e.put(key(i), value(i));
    }
    Thread.sleep(Long.MAX_VALUE);
  }
}
