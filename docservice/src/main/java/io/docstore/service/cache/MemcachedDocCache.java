package io.docstore.service.cache;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.MemcachedClientStateListener;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import net.rubyeye.xmemcached.exception.MemcachedException;
import net.rubyeye.xmemcached.impl.KetamaMemcachedSessionLocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memcached tier: xmemcached over the binary protocol, keys hashed ketama-style over several
 * servers, values in {@link CacheEntryFormat} (ID, sequence, masked CRC32C; anything that does not
 * verify is a miss and is deleted).
 *
 * <p><b>Ordering.</b> Fills use {@code add} (never overwrite), ingest writes use {@code set}, deletes
 * leave a tombstone, so a late fill never hides a newer version. The ingest path must call
 * {@link #set}/{@link #setDeleted} in sequence order per ID (the store's append path does), and
 * only one writer (the primary) may {@code set} into a given memcached pool: replicas sharing it
 * may only fill.
 *
 * <p><b>Never stale.</b> Two things could leave an old version in memcached: an ingest write that
 * failed or timed out (the old entry stays), and a change of the server set (when a server drops
 * out, ketama moves its keys to the others, which may hold versions from an earlier outage; when it
 * returns, it may still hold what it had). Either event makes the cache <em>suspect</em>: reads
 * bypass it (count as misses, so callers go to disk) and fills stop until a background task has
 * flushed every connected server after the event. The cache also starts suspect, since memcached
 * may hold entries from before this process started. Residual window: a read already in flight when
 * a server reconnects, before xmemcached reports it, can see that server's old entry.
 *
 * <p><b>Failure.</b> Every operation waits at most the configured timeout; a failure or timeout is a
 * miss or a dropped write, counted, and logged at most once per 10 s. xmemcached reconnects by
 * itself. Thread-safe.
 */
public final class MemcachedDocCache implements DocCache {

  private static final Logger log = LoggerFactory.getLogger(MemcachedDocCache.class);
  /** Key namespace; the digit is the value format version, so a format change starts afresh. */
  static final String KEY_PREFIX = "ds1:";
  /** Values above this are not stored (memcached's default item limit is 1 MiB). */
  static final int MAX_VALUE_BYTES = 1_000_000;
  private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final long HEAL_INTERVAL_MILLIS = 100;

  private final MemcachedClient client;
  private final long timeoutMillis;
  private final ScheduledExecutorService healer;
  /** Events (dropped writes, server set changes) so far; the cache is trusted when flushed past all. */
  private final AtomicLong events = new AtomicLong(1);
  private volatile long flushedThrough;
  private final AtomicLong lastLog = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);
  private final LongAdder unlogged = new LongAdder();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder fills = new LongAdder();
  private final LongAdder sets = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final LongAdder droppedWrites = new LongAdder();
  private final LongAdder corrupt = new LongAdder();
  private final LongAdder bypassed = new LongAdder();
  private final LongAdder flushes = new LongAdder();

  private MemcachedDocCache(List<InetSocketAddress> servers, Duration timeout) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("no memcached servers given");
    }
    this.timeoutMillis = Math.max(1, timeout.toMillis());
    XMemcachedClientBuilder builder = new XMemcachedClientBuilder(new ArrayList<>(servers));
    builder.setCommandFactory(new BinaryCommandFactory());
    builder.setSessionLocator(new KetamaMemcachedSessionLocator());
    builder.setFailureMode(false);
    builder.setConnectTimeout(Math.max(timeoutMillis, 1000));
    builder.setOpTimeout(timeoutMillis);
    builder.setHealSessionInterval(500);
    builder.setTranscoder(RawBytesTranscoder.INSTANCE);
    builder.addStateListener(new TopologyListener());
    try {
      this.client = builder.build();
    } catch (IOException e) {
      // Only the client's own reactor failing to start gets here; unreachable servers do not.
      throw new UncheckedIOException("cannot start the memcached client", e);
    }
    this.healer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "memcached-healer");
              t.setDaemon(true);
              return t;
            });
    healer.scheduleWithFixedDelay(
        this::flushIfSuspect, 0, HEAL_INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * Connects to {@code servers} (connection failures are retried in the background, not thrown).
   *
   * @param timeout the longest any cache operation may delay a caller
   */
  public static MemcachedDocCache create(List<InetSocketAddress> servers, Duration timeout) {
    return new MemcachedDocCache(servers, timeout);
  }

  /** As {@link #create(List, Duration)}, exporting {@code docstore.memcached.*} meters. */
  public static MemcachedDocCache create(
      List<InetSocketAddress> servers, Duration timeout, MeterRegistry registry) {
    MemcachedDocCache cache = new MemcachedDocCache(servers, timeout);
    cache.register(registry);
    return cache;
  }

  private void register(MeterRegistry registry) {
    String[] names = {
      "hit", "miss", "fill", "set", "error", "dropped_write", "corrupt", "bypassed", "flush"
    };
    LongAdder[] adders = {hits, misses, fills, sets, errors, droppedWrites, corrupt, bypassed, flushes};
    for (int i = 0; i < adders.length; i++) {
      FunctionCounter.builder("docstore.memcached.operations", adders[i], LongAdder::sum)
          .tag("result", names[i])
          .register(registry);
    }
    registry.gauge("docstore.memcached.servers.available", client,
        c -> c.getAvailableServers().size());
  }

  /** Servers currently connected. */
  public int getAvailableServerCount() {
    return client.getAvailableServers().size();
  }

  static String key(long id) {
    return KEY_PREFIX + id;
  }

  /** Whether reads are served from memcached right now (false while suspect). */
  public boolean isTrusted() {
    return flushedThrough == events.get();
  }

  private void flushIfSuspect() {
    long seen = events.get();
    if (flushedThrough == seen || client.getAvailableServers().isEmpty()) {
      return;
    }
    try {
      client.flushAll(timeoutMillis);
      flushes.increment();
      flushedThrough = seen;
    } catch (TimeoutException | MemcachedException | RuntimeException e) {
      failed("flush_all", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public CachedDoc get(long id) {
    return getAll(new long[] {id})[0];
  }

  @Override
  public CachedDoc[] getAll(long[] ids) {
    CachedDoc[] out = new CachedDoc[ids.length];
    if (ids.length == 0) {
      return out;
    }
    long before = events.get();
    if (flushedThrough != before) {
      bypassed.add(ids.length);
      misses.add(ids.length);
      return out;
    }
    Map<String, byte[]> values;
    try {
      if (ids.length == 1) {
        byte[] v = client.get(key(ids[0]), timeoutMillis, RawBytesTranscoder.INSTANCE);
        values = v == null ? Map.of() : Map.of(key(ids[0]), v);
      } else {
        List<String> keys = new ArrayList<>(ids.length);
        for (long id : ids) {
          keys.add(key(id));
        }
        values = client.get(keys, timeoutMillis, RawBytesTranscoder.INSTANCE);
      }
    } catch (TimeoutException | MemcachedException | RuntimeException e) {
      failed("get", e);
      misses.add(ids.length);
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      misses.add(ids.length);
      return out;
    }
    if (events.get() != before) {
      // The server set changed or a write was dropped while reading: the answer may be stale.
      bypassed.add(ids.length);
      misses.add(ids.length);
      return out;
    }
    for (int i = 0; i < ids.length; i++) {
      byte[] v = values == null ? null : values.get(key(ids[i]));
      CachedDoc doc = v == null ? null : CacheEntryFormat.decode(ids[i], v);
      if (v != null && doc == null) {
        corrupt.increment();
        deleteQuietly(ids[i]);
      }
      (doc == null ? misses : hits).increment();
      out[i] = doc;
    }
    return out;
  }

  private void deleteQuietly(long id) {
    try {
      client.deleteWithNoReply(key(id));
    } catch (MemcachedException | RuntimeException e) {
      failed("delete", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void fill(long id, long sequence, byte[] body) {
    if (!isTrusted()) {
      return;
    }
    byte[] value = CacheEntryFormat.encode(id, sequence, body);
    if (value.length > MAX_VALUE_BYTES) {
      return;
    }
    try {
      if (client.add(key(id), 0, value, RawBytesTranscoder.INSTANCE, timeoutMillis)) {
        fills.increment();
      }
    } catch (TimeoutException | MemcachedException | RuntimeException e) {
      failed("add", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void set(long id, long sequence, byte[] body) {
    write(id, CacheEntryFormat.encode(id, sequence, body));
  }

  @Override
  public void setDeleted(long id, long sequence) {
    write(id, CacheEntryFormat.encode(id, sequence, null));
  }

  private void write(long id, byte[] value) {
    sets.increment();
    boolean ok;
    try {
      if (value.length > MAX_VALUE_BYTES) {
        // Too big to cache: make sure no older version stays behind (absent is a fine answer).
        client.delete(key(id), timeoutMillis);
        ok = true;
      } else {
        ok = client.set(key(id), 0, value, RawBytesTranscoder.INSTANCE, timeoutMillis);
      }
    } catch (TimeoutException | MemcachedException | RuntimeException e) {
      failed("set", e);
      ok = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ok = false;
    }
    if (!ok) {
      droppedWrites.increment();
      events.incrementAndGet();
    }
  }

  private void failed(String op, Throwable e) {
    errors.increment();
    long now = System.nanoTime();
    long last = lastLog.get();
    if (now - last >= LOG_INTERVAL_NANOS && lastLog.compareAndSet(last, now)) {
      long more = unlogged.sumThenReset();
      log.warn("memcached {} failed: {} ({} more failures since the last report; reads fall back to disk)",
          op, e.toString(), more);
    } else {
      unlogged.increment();
    }
  }

  @Override
  public CacheStats stats() {
    return new CacheStats(hits.sum(), misses.sum(), fills.sum(), sets.sum(), errors.sum(), 0);
  }

  /** Writes dropped because memcached failed or was slow. */
  public long droppedWrites() {
    return droppedWrites.sum();
  }

  /** Values that did not verify (bad checksum, format or ID). */
  public long corruptValues() {
    return corrupt.sum();
  }

  @Override
  public void close() {
    healer.shutdownNow();
    try {
      client.shutdown();
    } catch (IOException e) {
      log.warn("memcached client shutdown failed: {}", e.toString());
    }
  }

  /** Any change of the connected server set makes the cache suspect until the next flush. */
  private final class TopologyListener implements MemcachedClientStateListener {
    @Override
    public void onConnected(MemcachedClient c, InetSocketAddress server) {
      events.incrementAndGet();
      log.info("memcached {} connected", server);
    }

    @Override
    public void onDisconnected(MemcachedClient c, InetSocketAddress server) {
      events.incrementAndGet();
      log.warn("memcached {} disconnected; reads fall back to disk until it returns", server);
    }

    @Override
    public void onStarted(MemcachedClient c) {}

    @Override
    public void onShutDown(MemcachedClient c) {}

    @Override
    public void onException(MemcachedClient c, Throwable e) {
      failed("connection", e);
    }
  }
}
