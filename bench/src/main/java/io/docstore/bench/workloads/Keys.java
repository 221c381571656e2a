package io.docstore.bench.workloads;

import java.util.SplittableRandom;

/** Deterministic keys, values and orders, so readers verify without keeping what was written. */
public final class Keys {

  private Keys() {}

  /** The i-th random 64-bit key of a run: a bijection of i, so keys never repeat. */
  public static long randomKey(long seed, long i) {
    long z = seed + i * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** {@code size} random bytes determined by the key. */
  public static byte[] valueFor(long key, int size) {
    byte[] v = new byte[size];
    new SplittableRandom(key).nextBytes(v);
    return v;
  }

  public static byte[] bytes(long key) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) key;
      key >>>= 8;
    }
    return b;
  }

  /** A random permutation of 0..n-1 (Fisher-Yates). */
  public static int[] permutation(int n, long seed) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}
