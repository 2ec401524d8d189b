package io.cloudroute;

import java.nio.charset.StandardCharsets;

/**
 * A message or event of a {@link Subscription}: a published message ({@link MessageType#MESSAGE}:
 * its channel, payload and, when a pattern matched it, the pattern), or an event about a subscribed
 * name ({@link MessageType#SUBSCRIBED}, {@link MessageType#RESUBSCRIBED}, {@link
 * MessageType#MOVING} with its reason, {@link MessageType#UNSUBSCRIBED}) and the node it is about.
 * Immutable; channels, patterns and payloads are binary-safe (the byte[] accessors return copies).
 */
public final class Message {
  private final MessageType type;
  private final ChannelKind kind;
  private final byte[] channel;
  private final byte[] pattern;
  private final byte[] payload;
  private final String node;
  private final String reason;

  /** Made by the JNI glue (cr_message_get_*): node and reason as UTF-8. */
  Message(
      int type,
      int kind,
      byte[] channel,
      byte[] pattern,
      byte[] payload,
      byte[] node,
      byte[] reason) {
    this.type = MessageType.of(type);
    this.kind = ChannelKind.of(kind);
    this.channel = channel;
    this.pattern = pattern;
    this.payload = payload;
    this.node = new String(node, StandardCharsets.UTF_8);
    this.reason = new String(reason, StandardCharsets.UTF_8);
  }

  /** A message, or which event. */
  public MessageType type() {
    return type;
  }

  /**
   * The kind of the subscribed name: {@link ChannelKind#PATTERN} for a message a pattern matched.
   */
  public ChannelKind kind() {
    return kind;
  }

  /** A message's channel; an event's name. */
  public byte[] channel() {
    return channel.clone();
  }

  /** {@link #channel()} decoded as UTF-8. */
  public String channelString() {
    return new String(channel, StandardCharsets.UTF_8);
  }

  /** The pattern that matched a message; null otherwise. */
  public byte[] pattern() {
    return pattern == null ? null : pattern.clone();
  }

  /** {@link #pattern()} decoded as UTF-8; null when there is none. */
  public String patternString() {
    return pattern == null ? null : new String(pattern, StandardCharsets.UTF_8);
  }

  /** A message's payload; null for events. */
  public byte[] payload() {
    return payload == null ? null : payload.clone();
  }

  /** {@link #payload()} decoded as UTF-8; null for events. */
  public String payloadString() {
    return payload == null ? null : new String(payload, StandardCharsets.UTF_8);
  }

  /** "host:port" (as the topology announces it) the message came from or the event is about. */
  public String node() {
    return node;
  }

  /** Why a {@link MessageType#MOVING} event's name lost its subscription; "" otherwise. */
  public String reason() {
    return reason;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("Message{").append(type).append(' ').append(kind);
    b.append(" channel=").append(channelString());
    if (pattern != null) b.append(" pattern=").append(patternString());
    if (payload != null) b.append(" payload=").append(payloadString());
    b.append(" node=").append(node);
    if (!reason.isEmpty()) b.append(" reason=").append(reason);
    return b.append('}').toString();
  }
}
