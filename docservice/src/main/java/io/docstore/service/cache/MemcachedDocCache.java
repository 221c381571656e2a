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
import java.util.concurrent.ConcurrentHashMap;
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
 * <p><b>Ordering.</b> Fills use {@code add} (never overwrite), ingest writes use {@code set},
 * deletes leave a tombstone, so a late fill never hides a newer version. The ingest path must call
 * {@link #set}/{@link #setDeleted} in sequence order per ID (the store's append path does), and
 * only one writer (the primary) may {@code set} into a given memcached pool: replicas sharing it
 * may only fill.
 *
 * <p><b>Never stale.</b> Two things could leave an old version in memcached: an ingest write that
 * failed or timed out (the old entry stays), and a change of the server set (when a server drops
 * out, ketama moves its keys to the others, which may hold versions from an earlier outage; when it
 * returns, it may still hold what it had). Either event makes the cache <em>suspect</em>: reads
 * bypass it (count as misses, so callers go to disk) and fills stop until a background task has
 * moved the keys to a new generation ({@link CacheEpoch#renew}: the epoch in every key is bumped
 * and published in the data directory), so every entry written before the event is out of reach.
 * The cache also starts suspect, since memcached may hold entries from before this process started.
 * docstore never flushes a pool (other services may share it): old generations age out by
 * memcached's own eviction. Residual window: a read already in flight when a server reconnects,
 * before xmemcached reports it, can see that server's old entry.
 *
 * <p><b>Failure.</b> Every operation waits at most the configured timeout; a failure or timeout is
 * a miss or a dropped write, counted, and logged at most once per 10 s. xmemcached reconnects by
 * itself. Thread-safe.
 */
public final class MemcachedDocCache implements DocCache {

  private static final Logger log = LoggerFactory.getLogger(MemcachedDocCache.class);

  /** Values above this are not stored (memcached's default item limit is 1 MiB). */
  static final int MAX_VALUE_BYTES = 1_000_000;

  private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final long HEAL_INTERVAL_MILLIS = 100;

  private final MemcachedClient client;
  private final CacheEpoch epoch;
  private final long timeoutMillis;
  private final ScheduledExecutorService healer;

  /**
   * Events (dropped writes, server set changes) so far; the cache is trusted when renewed past all.
   */
  private final AtomicLong events = new AtomicLong(1);

  private volatile long renewedThrough;
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
  private final LongAdder renewals = new LongAdder();

  /** Set by {@link #close}: the disconnects that follow are ours, not an outage. */
  private volatile boolean closing;

  /**
   * Per ID, the sequence of its newest write that was dropped. A fill of an older version of that
   * ID is refused: its body may have been read from disk before the write, and the generation the
   * write's event started would otherwise take it in. Bounded: when full it is cleared and the
   * cache made suspect, whose renewal puts every earlier fill out of reach.
   */
  private final ConcurrentHashMap<Long, Long> dropped = new ConcurrentHashMap<>();

  static final int MAX_DROPPED = 1 << 16;

  private MemcachedDocCache(List<InetSocketAddress> servers, Duration timeout, CacheEpoch epoch) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("no memcached servers given");
    }
    this.epoch = java.util.Objects.requireNonNull(epoch, "epoch");
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
        this::renewIfSuspect, 0, HEAL_INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * Connects to {@code servers} (connection failures are retried in the background, not thrown).
   *
   * @param timeout the longest any cache operation may delay a caller
   * @param epoch the store's key generation ({@link CacheEpoch#open} on its data directory)
   */
  public static MemcachedDocCache create(
      List<InetSocketAddress> servers, Duration timeout, CacheEpoch epoch) {
    return new MemcachedDocCache(servers, timeout, epoch);
  }

  /**
   * As {@link #create(List, Duration, CacheEpoch)}, exporting {@code docstore.memcached.*} meters.
   */
  public static MemcachedDocCache create(
      List<InetSocketAddress> servers, Duration timeout, CacheEpoch epoch, MeterRegistry registry) {
    MemcachedDocCache cache = new MemcachedDocCache(servers, timeout, epoch);
    cache.register(registry);
    return cache;
  }

  private void register(MeterRegistry registry) {
    String[] names = {
      "hit", "miss", "fill", "set", "error", "dropped_write", "corrupt", "bypassed", "renew"
    };
    LongAdder[] adders = {
      hits, misses, fills, sets, errors, droppedWrites, corrupt, bypassed, renewals
    };
    for (int i = 0; i < adders.length; i++) {
      FunctionCounter.builder("docstore.memcached.operations", adders[i], LongAdder::sum)
          .tag("result", names[i])
          .register(registry);
    }
    registry.gauge(
        "docstore.memcached.servers.available", client, c -> c.getAvailableServers().size());
  }

  /** Servers currently connected. */
  public int getAvailableServerCount() {
    return client.getAvailableServers().size();
  }

  /** The key of document {@code id} in the current generation. */
  String key(long id) {
    return epoch.prefix() + id;
  }

  /** Whether reads are served from memcached right now (false while suspect). */
  public boolean isTrusted() {
    return renewedThrough == events.get();
  }

  /** Generations started so far: one at start and one per event that made the cache suspect. */
  public long renewals() {
    return renewals.sum();
  }

  private void renewIfSuspect() {
    long seen = events.get();
    if (renewedThrough == seen) {
      return;
    }
    try {
      epoch.renew();
      renewals.increment();
      renewedThrough = seen;
    } catch (IOException | RuntimeException e) {
      failed("renew of the cache epoch", e);
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
    if (renewedThrough != before) {
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
  public void fill(long id, long sequence, byte[] body, long expiresAtMillis) {
    String key = key(id);
    if (!isTrusted()) {
      return;
    }
    if (!dropped.isEmpty()) {
      Long newer = dropped.get(id);
      if (newer != null && newer > sequence) {
        bypassed.increment();
        return;
      }
    }
    byte[] value = CacheEntryFormat.encode(id, sequence, body, expiresAtMillis);
    if (value.length > MAX_VALUE_BYTES) {
      return;
    }
    try {
      if (client.add(key, 0, value, RawBytesTranscoder.INSTANCE, timeoutMillis)) {
        fills.increment();
      }
    } catch (TimeoutException | MemcachedException | RuntimeException e) {
      failed("add", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void set(long id, long sequence, byte[] body, long expiresAtMillis) {
    write(id, sequence, CacheEntryFormat.encode(id, sequence, body, expiresAtMillis));
  }

  @Override
  public void setDeleted(long id, long sequence) {
    write(id, sequence, CacheEntryFormat.encode(id, sequence, null, 0));
  }

  private void write(long id, long sequence, byte[] value) {
    sets.increment();
    boolean ok;
    if (epoch.prefix() == null) {
      // No generation yet: the first renewal starts an empty one, so there is nothing to update.
      return;
    }
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
      if (dropped.size() >= MAX_DROPPED) {
        dropped
            .clear(); // the event below makes the cache suspect, and its renewal safe without them
      }
      dropped.merge(id, sequence, Math::max);
      events.incrementAndGet();
    }
  }

  private void failed(String op, Throwable e) {
    errors.increment();
    long now = System.nanoTime();
    long last = lastLog.get();
    if (now - last >= LOG_INTERVAL_NANOS && lastLog.compareAndSet(last, now)) {
      long more = unlogged.sumThenReset();
      log.warn(
          "memcached {} failed: {} ({} more failures since the last report; reads fall back to disk)",
          op,
          e.toString(),
          more);
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
    closing = true;
    healer.shutdownNow();
    try {
      client.shutdown();
    } catch (IOException e) {
      log.warn("memcached client shutdown failed: {}", e.toString());
    }
  }

  /** Any change of the connected server set makes the cache suspect until the next renewal. */
  private final class TopologyListener implements MemcachedClientStateListener {
    @Override
    public void onConnected(MemcachedClient c, InetSocketAddress server) {
      events.incrementAndGet();
      log.info("memcached {} connected", server);
    }

    @Override
    public void onDisconnected(MemcachedClient c, InetSocketAddress server) {
      events.incrementAndGet();
      if (closing) {
        log.debug("memcached {} disconnected (closing)", server);
      } else {
        log.warn("memcached {} disconnected; reads fall back to disk until it returns", server);
      }
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
