/* The join page: swap the QR code's token for this phone's seat cookie. */
"use strict";

const token = document.querySelector(".join-page").dataset.token;
for (const btn of document.querySelectorAll(".join-seat")) {
  btn.addEventListener("click", async () => {
    const seat = btn.dataset.seat || null;
    const body = { token, seat };
    if (seat === null) body.pin = document.querySelector("#organiser-pin").value.trim();
    let data = {};
    try {
      const res = await sendTap("/api/join", {
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      data = await res.json().catch(() => ({}));
    } catch (e) { data = { error: "network" }; }
    if (data.ok) location.href = data.next;
    else toast(data.error ? reasonText(data.error, data.params, data.message) : (data.message || T("err")), true);
  });
}
