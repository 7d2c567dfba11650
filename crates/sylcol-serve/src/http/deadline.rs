//! A deadline on writing an answer. hyper hands a connection's answer
//! to the OS in writes and then flushes; a client that stops reading
//! fills the socket's buffers and leaves the write waiting, and the
//! answer (megabytes for a glTF scene) held, for as long as the client
//! stays. [`WriteDeadline`] wraps the connection's socket: from the
//! first write after a flush, everything up to the next completed flush
//! must go within the limit, else the write fails and hyper closes the
//! connection. Reading is passed through untouched (hyper's own
//! `header_read_timeout` and [`super::answer`]'s body deadline see to
//! it).

use std::future::Future;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// `io` whose writes must be flushed within `limit` of starting.
#[derive(Debug)]
pub struct WriteDeadline<T> {
    io: T,
    limit: Duration,
    deadline: Pin<Box<Sleep>>,
    writing: bool,
}

impl<T> WriteDeadline<T> {
    /// Wraps `io`: each answer written must be flushed within `limit`.
    pub fn new(io: T, limit: Duration) -> WriteDeadline<T> {
        WriteDeadline {
            io,
            limit,
            deadline: Box::pin(tokio::time::sleep(limit)),
            writing: false,
        }
    }

    /// A write starts the clock unless one is already running.
    fn start(&mut self) {
        if !self.writing {
            self.writing = true;
            let at = Instant::now() + self.limit;
            self.deadline.as_mut().reset(at);
        }
    }

    /// `write` on `io`, with the clock running; a write the OS cannot
    /// take yet waits for the deadline at most.
    fn timed<R>(
        &mut self,
        cx: &mut Context<'_>,
        write: impl FnOnce(Pin<&mut T>, &mut Context<'_>) -> Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>>
    where
        T: Unpin,
    {
        self.start();
        match write(Pin::new(&mut self.io), cx) {
            Poll::Pending => self.blocked(cx),
            done => done,
        }
    }

    /// A write the OS cannot take yet: pending until the deadline, then
    /// an error that ends the connection.
    fn blocked<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client did not take the answer within {:?}", self.limit),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteDeadline<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().timed(cx, |io, cx| io.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .timed(cx, |io, cx| io.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_flush(cx) {
            Poll::Ready(Ok(())) => {
                // hyper flushes once everything it had to write is written.
                this.writing = false;
                Poll::Ready(Ok(()))
            }
            Poll::Pending if this.writing => this.blocked(cx),
            other => other,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;
    use std::io::Read;

    async fn write_all<T: AsyncWrite + Unpin>(io: &mut T, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            let n = poll_fn(|cx| Pin::new(&mut *io).poll_write(cx, buf)).await?;
            buf = &buf[n..];
        }
        poll_fn(|cx| Pin::new(&mut *io).poll_flush(cx)).await
    }

    #[test]
    fn a_write_nobody_reads_fails_at_the_deadline() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let near = tokio::net::TcpStream::connect(listener.local_addr().unwrap())
                .await
                .unwrap();
            let (mut far, _) = listener.accept().unwrap();
            let mut io = WriteDeadline::new(near, Duration::from_millis(50));
            // Read as it comes: written and flushed.
            write_all(&mut io, &[1; 1000]).await.unwrap();
            far.read_exact(&mut [0; 1000]).unwrap();
            // Past the limit since the last write, a new answer goes too.
            tokio::time::sleep(Duration::from_millis(100)).await;
            write_all(&mut io, &[2; 1000]).await.unwrap();
            // Never read: once the socket's buffers are full, the write
            // waits for the limit and fails.
            let chunk = vec![3; 64 * 1024];
            let err = loop {
                if let Err(e) = write_all(&mut io, &chunk).await {
                    break e;
                }
            };
            assert_eq!(err.kind(), io::ErrorKind::TimedOut);
            assert!(err.to_string().contains("did not take the answer"), "{err}");
            drop(far);
        });
    }
}
