package io.docstore.service.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/1.1 port (Netty): decoding with line/header/body limits, idle and request timeouts, a
 * connection cap, and a bounded worker pool that runs the {@link Routes} off the network threads.
 * Responses keep request order (pipelining).
 *
 * <p>Lifecycle: {@link #start}, then {@link #close} stops accepting, lets queued requests finish
 * for up to the grace period, and closes the remaining connections. Thread-safe.
 */
public final class HttpServer implements Closeable {

  /** Limits of one port. */
  public record Limits(
      int maxRequestLine,
      int maxHeaderSize,
      int maxBody,
      Duration idleTimeout,
      Duration requestTimeout,
      int maxConnections,
      int workerThreads,
      int workerQueue) {}

  private final String name;

  /** Requests by route and status ({@code docstore_http_requests_seconds}). */
  private final HttpMeters meters;

  private final InetSocketAddress bind;
  private final Limits limits;
  private final Routes routes;
  private final EventLoopGroup boss;
  private final EventLoopGroup io;
  private final ThreadPoolExecutor workers;
  private final ConnectionLimiter limiter;
  private final ResponseBudget budget = ResponseBudget.forThisJvm();
  private Channel channel;

  public HttpServer(
      String name,
      InetSocketAddress bind,
      Limits limits,
      Routes routes,
      io.micrometer.core.instrument.MeterRegistry registry) {
    this.meters = new HttpMeters(registry, name);
    this.name = name;
    this.bind = bind;
    this.limits = limits;
    this.routes = routes;
    this.boss =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory(name + "-accept", true), NioIoHandler.newFactory());
    this.io =
        new MultiThreadIoEventLoopGroup(
            Math.max(2, Runtime.getRuntime().availableProcessors()),
            new DefaultThreadFactory(name + "-io", true),
            NioIoHandler.newFactory());
    this.workers =
        new ThreadPoolExecutor(
            limits.workerThreads(),
            limits.workerThreads(),
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(limits.workerQueue()),
            new DefaultThreadFactory(name + "-worker", true));
    this.limiter = new ConnectionLimiter(limits.maxConnections());
  }

  /**
   * Binds and starts accepting; returns when the port is open.
   *
   * @throws PortInUseException if the port cannot be opened (its threads are stopped again)
   */
  public HttpServer start() throws InterruptedException, PortInUseException {
    HttpDecoderConfig decoder =
        new HttpDecoderConfig()
            .setMaxInitialLineLength(limits.maxRequestLine())
            .setMaxHeaderSize(limits.maxHeaderSize())
            .setMaxChunkSize(64 * 1024);
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, io)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ChannelPipeline p = ch.pipeline();
                    p.addLast(limiter);
                    p.addLast(
                        new IdleStateHandler(
                            0, 0, limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
                    p.addLast(new RequestTimeoutHandler(limits.requestTimeout().toMillis()));
                    p.addLast(new HttpServerCodec(decoder));
                    p.addLast(new OversizeAwareAggregator(limits.maxBody()));
                    p.addLast(new HttpDispatcher(routes, workers, budget, meters));
                  }
                });
    try {
      channel = b.bind(bind).sync().channel();
    } catch (Exception e) {
      close(Duration.ZERO);
      if (e instanceof java.net.BindException) {
        throw new PortInUseException(name, bind, e);
      }
      throw e;
    }
    return this;
  }

  /** The bound port (useful when configured as 0). */
  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  public String host() {
    return bind.getHostString();
  }

  /** Connections open now. */
  public int openConnections() {
    return limiter.open();
  }

  /** Stops accepting, drains queued work for up to {@code grace}, then closes everything. */
  public void close(Duration grace) {
    if (channel != null) {
      channel.close().awaitUninterruptibly();
    }
    boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
    workers.shutdown();
    try {
      workers.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // No shutdownNow(): interrupting a worker inside a FileChannel read would close the queue's
    // shared file channel. Stragglers past the grace period finish or fail against the closed
    // store.
    // A short quiet period lets the last responses flush before connections close.
    io.shutdownGracefully(50, Math.max(100, grace.toMillis()), TimeUnit.MILLISECONDS)
        .awaitUninterruptibly();
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }

  @Override
  public String toString() {
    return name + " http://" + host() + ":" + port() + "/";
  }
}
