package io.docstore.service.http;

import java.net.BindException;
import java.net.InetSocketAddress;

/**
 * A port could not be opened because something already listens on it (or the address is not this
 * machine's): says which port, where, and what to do, instead of the JDK's bare "Address already in
 * use". The service adds the configuration key that sets it.
 */
public final class PortInUseException extends BindException {

  private static final long serialVersionUID = 1L;

  public PortInUseException(String what, InetSocketAddress at, Throwable cause) {
    super(
        "the "
            + what
            + " port "
            + at.getHostString()
            + ":"
            + at.getPort()
            + " cannot be opened ("
            + cause.getMessage()
            + "): another process (another docstore?) may listen there; stop it or choose another"
            + " port");
    initCause(cause);
  }
}
