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

/**
 * A loopback TCP proxy that can cut its connections and refuse new ones, simulating a network
 * partition while the server behind it keeps running (and keeps its data).
 */
public final class TcpProxy implements AutoCloseable {

  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile boolean cut;
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
    cut = true;
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  public void restore() {
    cut = false;
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
      try {
        Socket server = new Socket();
        server.connect(target, 1000);
        open.add(client);
        open.add(server);
        pump(client, server);
        pump(server, client);
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[8192];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  out.write(buf, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // The other direction or cut() closed the pair; nothing to report.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "proxy-pump");
    t.setDaemon(true);
    t.start();
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
    cut();
  }
}
