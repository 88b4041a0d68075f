package io.mongocdc.workflows.model;

/**
 * A signal that was not acted on: an edit that is invalid, or a {@code pause}, {@code terminate}
 * or {@code edit} whose body has the wrong shape (a signal cannot answer, so status shows it);
 * also the added collections of an edit that the source or destination refused.
 *
 * @param atMillis workflow time it arrived, epoch milliseconds
 * @param request the body as received, as JSON
 * @param reason why it was rejected; for a signal, it starts with what the signal was ({@code
 *     pause: }, {@code terminate: }, {@code invalid edit: })
 */
public record RejectedEdit(long atMillis, String request, String reason) {}
