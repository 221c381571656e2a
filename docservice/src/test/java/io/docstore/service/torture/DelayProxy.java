package io.docstore.service.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy that can delay every chunk it forwards (a slow cache server or a congested
 * link). Thread-safe: the delay may change while connections run; {@link #close} closes them all.
 */
final class DelayProxy implements AutoCloseable {

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile long delayMillis;
  private volatile boolean closed;

  DelayProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "delay-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  int port() {
    return server.getLocalPort();
  }

  void delay(long millis) {
    delayMillis = millis;
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket();
        try {
          upstream.connect(target, 1000);
        } catch (IOException e) {
          client.close();
          continue;
        }
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[16 << 10];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                  long d = delayMillis;
                  if (d > 0) {
                    Thread.sleep(d); // the point of this proxy: a slow link
                  }
                  out.write(buf, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // either side went away
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "delay-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    sockets.forEach(DelayProxy::closeQuietly);
  }
}
