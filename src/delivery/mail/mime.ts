import { createMimeMessage } from "mimetext/browser";

/** An e-mail as a job builds it; `buildMime` turns it into the message that is sent. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra header fields, e.g. List-Unsubscribe (RFC 8058). */
  headers?: Record<string, string>;
  attachments: { filename: string; contentType: string; bytes: Uint8Array; contentId?: string }[];
}

export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The raw MIME message (built with mimetext). */
export function buildMime(from: string, mail: Mail): string {
  const message = createMimeMessage();
  message.setSender(from);
  message.setRecipient(mail.to);
  message.setSubject(mail.subject);
  for (const [name, value] of Object.entries(mail.headers ?? {})) message.setHeader(name, value);
  message.addMessage({ contentType: "text/plain", data: mail.text });
  if (mail.html) message.addMessage({ contentType: "text/html", data: mail.html });
  for (const attachment of mail.attachments) {
    message.addAttachment({
      filename: attachment.filename,
      contentType: attachment.contentType,
      data: base64(attachment.bytes),
      ...(attachment.contentId ? { inline: true, headers: { "Content-ID": `<${attachment.contentId}>` } } : {}),
    });
  }
  return message.asRaw();
}
