package io.docstore.service.cache;

import net.rubyeye.xmemcached.transcoders.CachedData;
import net.rubyeye.xmemcached.transcoders.CompressionMode;
import net.rubyeye.xmemcached.transcoders.Transcoder;

/**
 * Stores byte arrays exactly as given (flags 0, never compressed or serialized), so the value
 * format is ours alone ({@link CacheEntryFormat}). The tuning setters of the interface do not apply
 * and are ignored. Stateless, thread-safe.
 */
final class RawBytesTranscoder implements Transcoder<byte[]> {

  static final RawBytesTranscoder INSTANCE = new RawBytesTranscoder();

  private RawBytesTranscoder() {}

  @Override
  public CachedData encode(byte[] bytes) {
    return new CachedData(0, bytes);
  }

  @Override
  public byte[] decode(CachedData data) {
    return data.getData();
  }

  @Override
  public void setPrimitiveAsString(boolean primitiveAsString) {}

  @Override
  public void setPackZeros(boolean packZeros) {}

  @Override
  public void setCompressionThreshold(int to) {}

  @Override
  public boolean isPrimitiveAsString() {
    return false;
  }

  @Override
  public boolean isPackZeros() {
    return false;
  }

  @Override
  public void setCompressionMode(CompressionMode compressMode) {}
}
