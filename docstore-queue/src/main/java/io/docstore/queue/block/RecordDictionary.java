package io.docstore.queue.block;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import com.github.luben.zstd.ZstdDictDecompress;
import com.github.luben.zstd.ZstdDictTrainer;
import com.github.luben.zstd.ZstdException;
import io.docstore.io.Checksums;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A segment's zstd dictionary: trained from sample bodies by the writer, stored as the first block
 * of every segment that uses it ({@link io.docstore.queue.format.BlockFormat#FLAG_DICTIONARY}), and
 * used to compress each record's body on its own, so that reading one record decompresses about one
 * kilobyte instead of a whole block. Frames are written without magic number, checksum, content
 * size or dictionary id (the block's checksums cover them, the record stores its length, the block
 * names the dictionary): a body of 1 KB costs about 300 bytes on disk.
 *
 * <p>Immutable and shareable. Decompression contexts are pooled (each holds about 100 KiB of native
 * memory), so a reading thread borrows one per record rather than keeping its own; so are the
 * compression contexts of {@link #compress}, per dictionary.
 */
public final class RecordDictionary {

  /**
   * zstd level used by writers: 3 (zstd's default) stored job documents 10% smaller than level 1 at
   * the same speed.
   */
  public static final int LEVEL = 3;

  /** Decompression contexts kept for reuse; more are made and closed under a burst. */
  private static final int POOLED_CONTEXTS = 64;

  private static final ConcurrentLinkedQueue<ZstdDecompressCtx> CONTEXTS =
      new ConcurrentLinkedQueue<>();
  private static final AtomicInteger POOLED = new AtomicInteger();

  private final byte[] bytes;
  private final int id;
  private final ZstdDictDecompress decompress;
  private volatile ZstdDictCompress compress;

  /**
   * Compression contexts of {@link #compress} kept for reuse (each holds about a megabyte of native
   * memory with the dictionary's tables); more are made and closed under a burst.
   */
  private static final int POOLED_COMPRESSORS = 8;

  /** Each compressing thread's output buffer, grown to the largest bound seen. */
  private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[4096]);

  /** Compression contexts of {@link #compress}, kept for reuse. */
  private final ConcurrentLinkedQueue<ZstdCompressCtx> compressors = new ConcurrentLinkedQueue<>();

  private final AtomicInteger pooledCompressors = new AtomicInteger();

  /** The dictionary made of {@code bytes} (as stored in a dictionary block). */
  public RecordDictionary(byte[] bytes) {
    this.bytes = bytes.clone();
    this.id = idOf(this.bytes, 0, this.bytes.length);
    this.decompress = new ZstdDictDecompress(this.bytes);
  }

  /** The id a block names its dictionary by: the masked CRC32C of the dictionary's bytes. */
  public static int idOf(byte[] b, int off, int len) {
    return Checksums.crc32c(b, off, len);
  }

  /**
   * Trains a dictionary of at most {@code maxBytes} from {@code samples}; null if zstd cannot make
   * one from them (too few, too small or too alike), in which case the caller keeps block-wise LZ4.
   */
  public static RecordDictionary train(List<byte[]> samples, int maxBytes) {
    long total = 0;
    for (byte[] s : samples) {
      total += s.length;
    }
    if (samples.size() < 8 || total > Integer.MAX_VALUE - 1024) {
      return null;
    }
    try {
      ZstdDictTrainer trainer = new ZstdDictTrainer((int) total + 1024, maxBytes);
      for (byte[] s : samples) {
        trainer.addSample(s);
      }
      byte[] dict = trainer.trainSamples();
      return dict.length == 0 ? null : new RecordDictionary(dict);
    } catch (ZstdException | IllegalStateException e) {
      return null;
    }
  }

  public byte[] bytes() {
    return bytes.clone();
  }

  public int length() {
    return bytes.length;
  }

  public int id() {
    return id;
  }

  /** Copies the dictionary into {@code dst} at {@code off}. */
  public void copyTo(byte[] dst, int off) {
    System.arraycopy(bytes, 0, dst, off, bytes.length);
  }

  /** A compression context for this dictionary; the caller closes it. */
  public ZstdCompressCtx newCompressor() {
    ZstdDictCompress c = compress;
    if (c == null) {
      synchronized (this) {
        c = compress;
        if (c == null) {
          compress = c = new ZstdDictCompress(bytes, LEVEL);
        }
      }
    }
    ZstdCompressCtx ctx = new ZstdCompressCtx();
    ctx.setLevel(LEVEL);
    ctx.setMagicless(true);
    ctx.setChecksum(false);
    ctx.setContentSize(false);
    ctx.setDictID(false);
    ctx.loadDict(c);
    return ctx;
  }

  /**
   * {@code body} as a block of this dictionary's records would store it: one zstd frame (as {@link
   * #newCompressor} makes), or the body itself when that is not smaller. Thread-safe: for writers
   * that compress ahead of their append, outside the queue writer's lock.
   */
  public StoredBody compress(byte[] body) {
    int len = body.length;
    if (len == 0) {
      return new StoredBody(id, body, 0);
    }
    ZstdCompressCtx ctx = compressors.poll();
    if (ctx == null) {
      ctx = newCompressor();
    } else {
      pooledCompressors.decrementAndGet();
    }
    try {
      byte[] out = SCRATCH.get();
      if (out.length < bound(len)) {
        out = new byte[bound(len)];
        SCRATCH.set(out);
      }
      int z = ctx.compressByteArray(out, 0, out.length, body, 0, len);
      return z >= len
          ? new StoredBody(id, body, len)
          : new StoredBody(id, java.util.Arrays.copyOf(out, z), len);
    } finally {
      if (pooledCompressors.incrementAndGet() <= POOLED_COMPRESSORS) {
        compressors.offer(ctx);
      } else {
        pooledCompressors.decrementAndGet();
        ctx.close();
      }
    }
  }

  /** Worst-case compressed size of {@code length} bytes. */
  public static int bound(int length) {
    return (int) Zstd.compressBound(length);
  }

  /**
   * Decompresses {@code src[srcOff, srcOff+srcLen)} (a direct buffer: a mapping or a read buffer)
   * into {@code dst[dstOff, dstOff+dstLen)}; the decompressed length, or -1 if the frame is damaged
   * or does not decompress to exactly {@code dstLen} bytes.
   */
  public int decompress(
      ByteBuffer src, int srcOff, int srcLen, ByteBuffer dst, int dstOff, int dstLen) {
    ZstdDecompressCtx ctx = borrow();
    try {
      int n;
      if (src.isDirect() && dst.isDirect()) {
        n = ctx.decompressDirectByteBuffer(dst, dstOff, dstLen, src, srcOff, srcLen);
      } else if (src.isDirect() && dst.hasArray()) {
        n =
            ctx.decompressDirectByteBufferToByteArray(
                dst.array(), dst.arrayOffset() + dstOff, dstLen, src, srcOff, srcLen);
      } else {
        byte[] in = new byte[srcLen];
        src.get(srcOff, in);
        byte[] out = new byte[dstLen];
        n = ctx.decompressByteArray(out, 0, dstLen, in, 0, srcLen);
        dst.put(dstOff, out, 0, Math.max(0, Math.min(n, dstLen)));
      }
      return n == dstLen ? n : -1;
    } catch (ZstdException | IllegalArgumentException | IndexOutOfBoundsException e) {
      return -1;
    } finally {
      release(ctx);
    }
  }

  private ZstdDecompressCtx borrow() {
    ZstdDecompressCtx ctx = CONTEXTS.poll();
    if (ctx == null) {
      ctx = new ZstdDecompressCtx();
      ctx.setMagicless(true);
    } else {
      POOLED.decrementAndGet();
    }
    ctx.loadDict(decompress);
    return ctx;
  }

  private static void release(ZstdDecompressCtx ctx) {
    if (POOLED.incrementAndGet() <= POOLED_CONTEXTS) {
      CONTEXTS.offer(ctx);
    } else {
      POOLED.decrementAndGet();
      ctx.close();
    }
  }
}
