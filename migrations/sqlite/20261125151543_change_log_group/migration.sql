-- AlterTable
ALTER TABLE "ChangeLog" ADD COLUMN "writeGroup" TEXT;
