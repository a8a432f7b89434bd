-- AlterTable
ALTER TABLE "ChangeLog" ADD COLUMN     "eventId" INTEGER;

-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "personalData" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "WebhookHeldToken" (
    "endpointId" INTEGER NOT NULL,
    "attendeeId" INTEGER NOT NULL,
    "token" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebhookHeldToken_pkey" PRIMARY KEY ("endpointId","attendeeId")
);

-- CreateIndex
CREATE INDEX "WebhookHeldToken_attendeeId_idx" ON "WebhookHeldToken"("attendeeId");

-- CreateIndex
CREATE INDEX "WebhookHeldToken_expiresAt_idx" ON "WebhookHeldToken"("expiresAt");

-- AddForeignKey
ALTER TABLE "WebhookHeldToken" ADD CONSTRAINT "WebhookHeldToken_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookHeldToken" ADD CONSTRAINT "WebhookHeldToken_attendeeId_fkey" FOREIGN KEY ("attendeeId") REFERENCES "Attendee"("id") ON DELETE CASCADE ON UPDATE CASCADE;
