package io.docstore.service.rpc;

import io.docstore.client.wire.RpcFormat;
import io.docstore.client.wire.RpcFrameDecoder;
import io.docstore.service.DocumentSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The binary RPC read server (format: {@link RpcFormat}, {@code docs/formats/rpc.md}).
 *
 * <p>Netty event loops only frame, validate and write; every {@link DocumentSource} call runs on a
 * bounded lookup pool, so a slow disk never stalls the event loop. Responses are written as their
 * lookups finish, so they may overtake earlier requests on the same connection. Limits (frame size,
 * IDs per request, queued lookups, in-flight requests per connection, connections, idle and
 * partial-frame timeouts) keep a hostile or broken client from hurting the others.
 *
 * <p>Lifecycle: {@link #start} once, {@link #close} once (idempotent). Thread-safe.
 */
public final class RpcServer implements Closeable {

  /** Settings of an {@link RpcServer}; build with {@link #builder()}. Immutable. */
  public static final class Options {
    final String host;
    final int port;
    final int maxIdsPerRequest;
    final int maxFrameBytes;
    final int maxResponseBytes;
    final int ioThreads;
    final int lookupThreads;
    final int maxQueuedRequests;
    final int maxInFlightPerConnection;
    final int maxConnections;
    final Duration frameTimeout;
    final Duration idleTimeout;

    private Options(Builder b) {
      host = b.host;
      port = b.port;
      maxIdsPerRequest = b.maxIdsPerRequest;
      maxFrameBytes = b.maxFrameBytes;
      maxResponseBytes = b.maxResponseBytes;
      ioThreads = b.ioThreads;
      lookupThreads = b.lookupThreads;
      maxQueuedRequests = b.maxQueuedRequests;
      maxInFlightPerConnection = b.maxInFlightPerConnection;
      maxConnections = b.maxConnections;
      frameTimeout = b.frameTimeout;
      idleTimeout = b.idleTimeout;
    }

    public static Builder builder() {
      return new Builder();
    }

    /** The defaults: loopback port 8082, 1,000 IDs per request, 64 KiB request frames. */
    public static Options defaults() {
      return builder().build();
    }

    public int maxIdsPerRequest() {
      return maxIdsPerRequest;
    }

    public int maxFrameBytes() {
      return maxFrameBytes;
    }

    /** Builder of {@link Options}; every setter has a documented default. */
    public static final class Builder {
      private String host = "127.0.0.1";
      private int port = 8082;
      private int maxIdsPerRequest = 1000;
      private int maxFrameBytes = 64 * 1024;
      private int maxResponseBytes = 64 << 20;
      private int ioThreads = Math.min(2, Runtime.getRuntime().availableProcessors());
      private int lookupThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
      private int maxQueuedRequests = 1024;
      private int maxInFlightPerConnection = 64;
      private int maxConnections = 1024;
      private Duration frameTimeout = Duration.ofSeconds(10);
      private Duration idleTimeout = Duration.ofMinutes(5);

      private Builder() {}

      /** Bind address (default loopback {@code 127.0.0.1}). */
      public Builder host(String v) {
        host = v;
        return this;
      }

      /** Port (default 8082; 0 picks a free one, see {@link RpcServer#port()}). */
      public Builder port(int v) {
        port = v;
        return this;
      }

      /** IDs one GET_MANY or GET_MANY_GROUP may carry (default 1,000). */
      public Builder maxIdsPerRequest(int v) {
        maxIdsPerRequest = v;
        return this;
      }

      /**
       * Largest request frame body (default 64 KiB); must fit a GET_MANY_GROUP of {@code
       * maxIdsPerRequest} IDs and the longest group name.
       */
      public Builder maxFrameBytes(int v) {
        maxFrameBytes = v;
        return this;
      }

      /** Largest response body (default 64 MiB); entries past it are sent as NOT_SENT. */
      public Builder maxResponseBytes(int v) {
        maxResponseBytes = v;
        return this;
      }

      /** Netty event loop threads (default min(2, cores)). */
      public Builder ioThreads(int v) {
        ioThreads = v;
        return this;
      }

      /** Threads that call the DocumentSource (default max(2, cores)). */
      public Builder lookupThreads(int v) {
        lookupThreads = v;
        return this;
      }

      /** Lookups waiting for a thread before requests get OVERLOADED (default 1,024). */
      public Builder maxQueuedRequests(int v) {
        maxQueuedRequests = v;
        return this;
      }

      /** Unanswered requests per connection before the server stops reading it (default 64). */
      public Builder maxInFlightPerConnection(int v) {
        maxInFlightPerConnection = v;
        return this;
      }

      /** Open connections; more are refused with OVERLOADED (default 1,024). */
      public Builder maxConnections(int v) {
        maxConnections = v;
        return this;
      }

      /** How long a started frame may stay incomplete before MALFORMED and close (default 10 s). */
      public Builder frameTimeout(Duration v) {
        frameTimeout = v;
        return this;
      }

      /** A connection with no traffic either way for this long is closed (default 5 min). */
      public Builder idleTimeout(Duration v) {
        idleTimeout = v;
        return this;
      }

      public Options build() {
        int needed =
            RpcFormat.GET_MANY_GROUP_FIXED_SIZE
                + RpcFormat.MAX_GROUP_NAME_BYTES
                + 8 * maxIdsPerRequest;
        check(maxIdsPerRequest > 0, "maxIdsPerRequest must be positive");
        check(
            maxFrameBytes >= needed,
            "maxFrameBytes "
                + maxFrameBytes
                + " cannot hold "
                + maxIdsPerRequest
                + " IDs and a group name ("
                + needed
                + ")");
        check(maxResponseBytes >= 1024, "maxResponseBytes must be at least 1024");
        check(port >= 0 && port <= 65535, "port out of range: " + port);
        check(ioThreads > 0 && lookupThreads > 0, "thread counts must be positive");
        check(
            maxQueuedRequests > 0 && maxInFlightPerConnection > 0 && maxConnections > 0,
            "queue, in-flight and connection limits must be positive");
        check(
            !frameTimeout.isNegative() && !frameTimeout.isZero(), "frameTimeout must be positive");
        check(!idleTimeout.isNegative() && !idleTimeout.isZero(), "idleTimeout must be positive");
        return new Options(this);
      }

      private static void check(boolean ok, String why) {
        if (!ok) {
          throw new IllegalArgumentException(why);
        }
      }
    }
  }

  final DocumentSource source;
  final Options options;

  /** The shard map's view of which documents this node serves; null: every document. */
  final io.docstore.service.cluster.ClusterView cluster;

  final ThreadPoolExecutor lookups;
  final ChannelGroup channels = new DefaultChannelGroup("rpc", GlobalEventExecutor.INSTANCE);
  final AtomicInteger connections = new AtomicInteger();
  final Counter requests;
  final Counter found;
  final Counter missing;
  final Counter corrupt;
  final Counter failed;
  final Timer latency;
  final MeterRegistry registry;
  private final EventLoopGroup bossGroup;
  private final EventLoopGroup ioGroup;
  private Channel serverChannel;
  private volatile boolean closed;

  public RpcServer(DocumentSource source, Options options, MeterRegistry registry) {
    this(source, options, registry, null);
  }

  /**
   * @param cluster the documents this node serves (others are answered {@code wrong_shard}), or
   *     null for all
   */
  public RpcServer(
      DocumentSource source,
      Options options,
      MeterRegistry registry,
      io.docstore.service.cluster.ClusterView cluster) {
    this.source = source;
    this.cluster = cluster;
    this.options = options;
    this.registry = registry;
    this.lookups =
        new ThreadPoolExecutor(
            options.lookupThreads,
            options.lookupThreads,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(options.maxQueuedRequests),
            new DefaultThreadFactory("rpc-lookup", true));
    this.requests = registry.counter("docstore.rpc.requests");
    this.found = registry.counter("docstore.rpc.documents", "status", "found");
    this.missing = registry.counter("docstore.rpc.documents", "status", "missing");
    this.corrupt = registry.counter("docstore.rpc.documents", "status", "corrupt");
    this.failed = registry.counter("docstore.rpc.documents", "status", "error");
    this.latency = registry.timer("docstore.rpc.request.latency");
    registry.gauge("docstore.rpc.connections", connections);
    this.bossGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    this.ioGroup = new MultiThreadIoEventLoopGroup(options.ioThreads, NioIoHandler.newFactory());
  }

  /** Binds the port; returns once the server accepts connections. */
  public void start() throws IOException {
    ServerBootstrap b =
        new ServerBootstrap()
            .group(bossGroup, ioGroup)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    RpcFrameDecoder decoder = new RpcFrameDecoder(options.maxFrameBytes);
                    ch.pipeline()
                        .addLast(
                            new IdleStateHandler(
                                options.frameTimeout.toMillis(),
                                0,
                                options.idleTimeout.toMillis(),
                                TimeUnit.MILLISECONDS))
                        .addLast(decoder)
                        .addLast(new RpcServerHandler(RpcServer.this, decoder));
                  }
                });
    try {
      serverChannel = b.bind(new InetSocketAddress(options.host, options.port)).sync().channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding the RPC port", e);
    } catch (RuntimeException e) {
      close();
      throw new IOException("cannot bind RPC port " + options.host + ":" + options.port, e);
    } catch (Exception e) {
      close();
      if (e instanceof java.net.BindException) {
        throw new io.docstore.service.http.PortInUseException(
            "RPC", new InetSocketAddress(options.host, options.port), e);
      }
      throw e;
    }
  }

  /** The bound port (the actual one when port 0 was asked). */
  public int port() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * Stops accepting connections, lets queued and running lookups finish and their answers go out
   * (at most 2 s; requests arriving meanwhile get SHUTTING_DOWN, which clients retry elsewhere),
   * then closes every connection.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (serverChannel != null) {
      serverChannel.close().awaitUninterruptibly();
    }
    lookups.shutdown();
    try {
      lookups.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // Answers were queued on each channel's event loop before this close, so they are written
    // first.
    channels.close().awaitUninterruptibly();
    ioGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
  }
}
