package io.docstore.service.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A raw-socket HTTP client for tests that need malformed, pipelined or slow requests. */
final class RawHttp implements AutoCloseable {

  /** One parsed response. */
  record Response(int status, String headers, String body) {}

  final Socket socket;
  private final InputStream in;

  RawHttp(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(10_000);
    in = socket.getInputStream();
  }

  void write(String s) throws IOException {
    write(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  void write(byte[] b) throws IOException {
    socket.getOutputStream().write(b);
    socket.getOutputStream().flush();
  }

  /** Reads one response (Content-Length framed), or null at end of stream. */
  Response read() throws IOException {
    String head = readHead();
    if (head == null) {
      return null;
    }
    int status = Integer.parseInt(head.substring(9, 12));
    int length = 0;
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    byte[] body = status == 304 ? new byte[0] : in.readNBytes(length);
    return new Response(status, head, new String(body, StandardCharsets.UTF_8));
  }

  /** Reads one response to a HEAD request (headers only). */
  Response readHeadOnly() throws IOException {
    String head = readHead();
    return head == null ? null : new Response(Integer.parseInt(head.substring(9, 12)), head, "");
  }

  List<Response> read(int n) throws IOException {
    List<Response> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(read());
    }
    return out;
  }

  /** True when the server closed the connection (reads end of stream). */
  boolean closedByServer() throws IOException {
    try {
      return in.read() < 0;
    } catch (java.net.SocketException e) {
      return true;
    }
  }

  private String readHead() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    int state = 0;
    while ((c = in.read()) >= 0) {
      b.write(c);
      state =
          (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3))
              ? state + 1
              : 0;
      if (state == 4) {
        return b.toString(StandardCharsets.ISO_8859_1);
      }
    }
    return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
