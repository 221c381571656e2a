package io.docstore.service.rpc;

import io.docstore.client.wire.RpcFrames;
import io.docstore.client.wire.RpcResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;

/** A blocking socket speaking raw bytes to an {@link RpcServer}, for protocol tests. */
final class RawConnection implements AutoCloseable {

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  RawConnection(int port) throws IOException {
    socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
    socket.setSoTimeout(5000);
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  void send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  void send(ByteBuf buf) throws IOException {
    byte[] bytes = new byte[buf.readableBytes()];
    buf.readBytes(bytes);
    buf.release();
    send(bytes);
  }

  void getMany(long requestId, long... ids) throws IOException {
    send(RpcFrames.getMany(ByteBufAllocator.DEFAULT, requestId, ids, 0, ids.length));
  }

  RpcResponse read() throws IOException {
    int len = in.readInt();
    byte[] body = new byte[len];
    in.readFully(body);
    return RpcResponse.decode(Unpooled.wrappedBuffer(body));
  }

  /** Whether the server closed the connection (EOF or reset within the socket timeout). */
  boolean closedByServer() throws IOException {
    try {
      return in.read() < 0;
    } catch (EOFException | SocketException e) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
