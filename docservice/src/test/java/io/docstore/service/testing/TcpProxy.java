package io.docstore.service.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy that injects network faults between a client and a server that keeps running
 * (and keeps its data), since {@code tc netem} is not available on the test machines:
 *
 * <ul>
 *   <li>{@link #cut}: a partition: every proxied connection is closed and new ones are refused
 *       until {@link #restore};
 *   <li>{@link #reset}: every proxied connection is reset (RST) at once; new ones are accepted;
 *   <li>{@link #stall}: nothing is forwarded (connections stay open, new ones are accepted and stay
 *       silent) until {@link #unstall}: a link that hangs mid-transfer;
 *   <li>{@link #delay}: every chunk is held for a while before it is forwarded;
 *   <li>{@link #bandwidth}: each direction of each connection forwards at most so many bytes per
 *       second.
 * </ul>
 *
 * <p>Thread-safety: every fault may be switched from any thread while connections run; {@link
 * #close} closes them all.
 */
public final class TcpProxy implements AutoCloseable {

  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final Object unstalled = new Object();
  private final AtomicLong forwarded = new AtomicLong();
  private volatile boolean cut;
  private volatile boolean stalled;
  private volatile long delayMillis;
  private volatile long bytesPerSecond;
  private volatile boolean closed;

  public TcpProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "proxy-accept-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", listener.getLocalPort());
  }

  /** Closes every proxied connection and refuses new ones until {@link #restore()}. */
  public void cut() {
    synchronized (open) {
      cut = true;
      for (Socket s : open) {
        closeQuietly(s);
      }
      open.clear();
    }
  }

  public void restore() {
    synchronized (open) {
      cut = false;
    }
  }

  /**
   * Resets every proxied connection (RST, as a crashed peer or a middlebox would); new ones go on.
   */
  public void reset() {
    for (Socket s : open) {
      try {
        s.setSoLinger(true, 0);
      } catch (IOException e) {
        // already closed
      }
      closeQuietly(s);
    }
    open.clear();
  }

  /** Forwards nothing, keeping connections open, until {@link #unstall}. */
  public void stall() {
    stalled = true;
  }

  public void unstall() {
    synchronized (unstalled) {
      stalled = false;
      unstalled.notifyAll();
    }
  }

  /** Holds every chunk for {@code millis} before forwarding it (0: none). */
  public void delay(long millis) {
    delayMillis = millis;
  }

  /** At most {@code bytesPerSecond} per direction and connection (0: unlimited). */
  public void bandwidth(long bytesPerSecond) {
    this.bytesPerSecond = bytesPerSecond;
  }

  /** Connections open now (two sockets each). */
  public int connections() {
    return open.size() / 2;
  }

  /** Bytes forwarded so far, both directions. */
  public long forwarded() {
    return forwarded.get();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // listener closed
      }
      if (cut) {
        closeQuietly(client);
        continue;
      }
      Socket server = new Socket();
      try {
        server.connect(target, 1000);
      } catch (IOException e) {
        closeQuietly(client);
        continue;
      }
      // A cut() while this connection was being set up must close it too, so registering it and
      // checking the flag happen under the lock cut() takes: no connection outlives a cut.
      synchronized (open) {
        if (cut) {
          closeQuietly(client);
          closeQuietly(server);
          continue;
        }
        open.add(client);
        open.add(server);
      }
      pump(client, server);
      pump(server, client);
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[8192];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                while (true) {
                  long bps = bytesPerSecond;
                  int max =
                      bps > 0 ? (int) Math.max(256, Math.min(buf.length, bps / 50)) : buf.length;
                  int n = in.read(buf, 0, max);
                  if (n < 0) {
                    break;
                  }
                  awaitUnstalled();
                  long d = delayMillis;
                  if (d > 0) {
                    Thread.sleep(d);
                  }
                  out.write(buf, 0, n);
                  out.flush();
                  forwarded.addAndGet(n);
                  if (bps > 0) {
                    TimeUnit.MICROSECONDS.sleep(n * 1_000_000L / bps);
                  }
                }
              } catch (IOException | InterruptedException e) {
                // The other direction, cut(), reset() or close() closed the pair.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private void awaitUnstalled() throws InterruptedException {
    synchronized (unstalled) {
      while (stalled && !closed) {
        unstalled.wait(100);
      }
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Closing a socket that is already broken.
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    unstall();
    cut();
  }
}
