/**
 * The HTTP APIs (Netty 4.2): the read port ({@link io.docstore.service.http.ReadRoutes}, no write
 * paths) and the admin port ({@link io.docstore.service.http.AdminRoutes}: updates, the ops
 * endpoints of {@link io.docstore.service.http.HealthRoutes} and the admin page of {@link
 * io.docstore.service.http.AdminPage}, both of which a replica's admin port serves too), both
 * served by {@link io.docstore.service.http.HttpServer}. Store calls run on bounded worker pools,
 * never on the network threads. Must not touch the queue or index directly: it sees only {@link
 * io.docstore.service.DocumentSource} and {@link io.docstore.service.DocumentSink}.
 */
package io.docstore.service.http;
