package io.docstore.queue.block;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Big-endian access to byte arrays without allocation (VarHandle views). */
final class BigEndian {

  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

  private BigEndian() {}

  static long getLong(byte[] b, int off) {
    return (long) LONG.get(b, off);
  }

  static int getInt(byte[] b, int off) {
    return (int) INT.get(b, off);
  }

  static int getUnsignedShort(byte[] b, int off) {
    return Short.toUnsignedInt((short) SHORT.get(b, off));
  }

  static void putLong(byte[] b, int off, long v) {
    LONG.set(b, off, v);
  }

  static void putInt(byte[] b, int off, int v) {
    INT.set(b, off, v);
  }

  static void putShort(byte[] b, int off, int v) {
    SHORT.set(b, off, (short) v);
  }
}
